/** Implementation details of {@code oncely-micrometer}; not an API, may change in any release. */
@NullMarked
package dev.oncely.micrometer.internal;

import org.jspecify.annotations.NullMarked;
