/**
 * A queue consumer that handles each job once with the server half's inbox: a {@link
 * dev.oncely.examples.queue.JobTable} in SQLite delivers jobs at least once (a claimed job that is
 * not acknowledged comes back after a visibility timeout), and {@link
 * dev.oncely.examples.queue.JobConsumer} deduplicates them with one {@code Inbox.once} call before
 * the work ({@link dev.oncely.examples.queue.Shipments}, deliberately not idempotent) runs. The
 * same three lines fit a Kafka, SQS or JMS consumer: replace {@code claim} and {@code acknowledge}
 * with the queue's own.
 */
package dev.oncely.examples.queue;
