/** Runnable programs: the demo, the load driver, the reference server. Work in progress (issue 4). */
package dev.oncely.examples;
