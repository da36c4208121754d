/**
 * Oncely on Android: {@link dev.oncely.android.OncelyAndroid} wires the client to the platform's
 * SQLite ({@link dev.oncely.android.AndroidSqliteIntentStore}) in {@code noBackupFilesDir}, to the
 * device's connectivity ({@link dev.oncely.android.ConnectivityNetworkGate}) and to an
 * {@code android.util.LruCache} record cache ({@link dev.oncely.android.LruRecordCacheFactory}).
 * Minimum API level 26; see {@code docs/android.md}.
 */
@NullMarked
package dev.oncely.android;

import org.jspecify.annotations.NullMarked;
