/** Implementation details of {@code oncely-opentelemetry}; not an API, may change in any release. */
@NullMarked
package dev.oncely.opentelemetry.internal;

import org.jspecify.annotations.NullMarked;
