/** Android support: platform SQLite store, connectivity-aware resume. Work in progress (issue 5). */
package dev.oncely.android;
