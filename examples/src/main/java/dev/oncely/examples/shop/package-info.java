/**
 * The reference shop: the Oncely server half in a real HTTP server. {@link
 * dev.oncely.examples.shop.Shop} runs embedded Tomcat with the server half's {@code
 * IdempotencyFilter} in front of a payments API whose receipts live in a MapDB store and whose
 * payments live in a durable SQLite ledger, so a payment survives a SIGKILL of the shop at any
 * moment; start it with {@code java -jar oncely-examples.jar shop --store shop.db}.
 */
package dev.oncely.examples.shop;
