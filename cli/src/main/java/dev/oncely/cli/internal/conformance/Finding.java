package dev.oncely.cli.internal.conformance;

/**
 * What one probe found: its name, the statuses it saw, a verdict in words, and whether the verdict
 * is a risk for exactly-once effects.
 */
record Finding(String probe, String answers, String verdict, boolean risk) {
  static Finding notProbed(String probe, String why) {
    return new Finding(probe, "-", "not probed: " + why, false);
  }
}
