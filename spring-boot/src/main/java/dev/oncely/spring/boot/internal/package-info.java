/**
 * What the starter's configurations share and applications do not use: public only so that
 * classes in other packages of the starter can reach it. No compatibility is promised.
 *
 * <p>Every type in this package is null-marked (JSpecify).
 */
@NullMarked
package dev.oncely.spring.boot.internal;

import org.jspecify.annotations.NullMarked;
