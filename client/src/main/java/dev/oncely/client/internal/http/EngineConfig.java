package dev.oncely.client.internal.http;

import dev.oncely.client.internal.drive.DriveOwner;
import dev.oncely.client.internal.drive.DriveSettings;
import dev.oncely.client.HeaderProvider;
import okhttp3.Call;

/**
 * How the intent API's attempts reach the wire, fixed when the client is built: the settings
 * every drive runs with, the client's own HTTP client, the send-time headers, and the owner whose
 * close cancels the calls on the wire.
 */
public record EngineConfig(
    DriveSettings drive,
    Call.Factory http,
    HeaderProvider headers,
    DriveOwner owner) {}
