package dev.oncely.examples.cli;

import dev.oncely.examples.server.FaultPlan;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parsed {@code --name value}, {@code --name=value} and {@code --flag} options of one command.
 * Positional arguments, unknown and value-less options, and repeated ones (but those declared
 * repeatable) are refused with a {@link UsageException} naming them. Immutable.
 */
public final class Options {
  private final String command;
  private final Map<String, String> values;
  private final Map<String, List<String>> repeated;

  private Options(String command, Map<String, String> values,
      Map<String, List<String>> repeated) {
    this.command = command;
    this.values = values;
    this.repeated = repeated;
  }

  /**
   * Parses {@code args} of {@code command}.
   *
   * @param valued names (without {@code --}) that take a value
   * @param flags names that take none
   * @throws UsageException naming the first bad argument
   */
  public static Options parse(String command, List<String> args, Set<String> valued,
      Set<String> flags) throws UsageException {
    return parse(command, args, valued, flags, Set.of());
  }

  /**
   * Parses {@code args} of {@code command}, where the options named in {@code repeatable} (a
   * subset of {@code valued}) may be given more than once ({@link #strings}).
   *
   * @throws UsageException naming the first bad argument
   */
  public static Options parse(String command, List<String> args, Set<String> valued,
      Set<String> flags, Set<String> repeatable) throws UsageException {
    Map<String, String> values = new HashMap<>();
    Map<String, List<String>> repeated = new HashMap<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new UsageException("unexpected argument '" + arg + "' for " + command);
      }
      String name = arg.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (flags.contains(name)) {
        if (value != null) {
          throw new UsageException("option --" + name + " of " + command + " takes no value");
        }
        value = "true";
      } else if (valued.contains(name)) {
        if (value == null) {
          if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) {
            throw new UsageException("option --" + name + " of " + command + " needs a value");
          }
          value = args.get(++i);
        }
      } else {
        throw new UsageException("unknown option --" + name + " for " + command);
      }
      if (repeatable.contains(name)) {
        repeated.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        values.put(name, value);
      } else if (values.put(name, value) != null) {
        throw new UsageException("option --" + name + " is given more than once");
      }
    }
    return new Options(command, values, repeated);
  }

  /** Every value of a repeatable option, in the order given; empty if it was not given. */
  public List<String> strings(String name) {
    return List.copyOf(repeated.getOrDefault(name, List.of()));
  }

  /** Whether the option or flag was given. */
  public boolean has(String name) {
    return values.containsKey(name);
  }

  /** The value, or {@code fallback} if the option was not given. */
  public String string(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  /**
   * The value as an int in [min, max], or {@code fallback} if not given.
   *
   * @throws UsageException naming the option and value if it is not such an int
   */
  public int intValue(String name, int fallback, int min, int max) throws UsageException {
    if (!has(name)) {
      return fallback;
    }
    String v = values.get(name);
    try {
      int n = Integer.parseInt(v);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below with the accepted range
    }
    throw bad(name, v, "an integer in [" + min + ", " + max + "]");
  }

  /**
   * The value as a long, or {@code fallback} if not given.
   *
   * @throws UsageException naming the option and value if it is not a long
   */
  public long longValue(String name, long fallback) throws UsageException {
    if (!has(name)) {
      return fallback;
    }
    String v = values.get(name);
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw bad(name, v, "an integer");
    }
  }

  /**
   * The value as a decimal in [0, 1], or {@code fallback} if not given.
   *
   * @throws UsageException naming the option and value otherwise
   */
  public double share(String name, double fallback) throws UsageException {
    if (!has(name)) {
      return fallback;
    }
    String v = values.get(name);
    try {
      double d = Double.parseDouble(v);
      if (d >= 0.0 && d <= 1.0) {
        return d;
      }
    } catch (NumberFormatException e) {
      // reported below with the accepted range
    }
    throw bad(name, v, "a decimal in [0, 1]");
  }

  /**
   * The value as a duration ({@code 250ms}, {@code 2s}), or {@code fallback} if not given.
   *
   * @throws UsageException naming the option and value otherwise
   */
  public Duration duration(String name, Duration fallback) throws UsageException {
    if (!has(name)) {
      return fallback;
    }
    String v = values.get(name);
    try {
      return FaultPlan.parseDuration(v);
    } catch (IllegalArgumentException e) {
      throw bad(name, v, "a duration such as 250ms or 2s");
    }
  }

  /** A usage error naming the option of this command, its value and what was expected. */
  public UsageException bad(String name, String value, String expected) {
    return new UsageException(
        "option --" + name + " of " + command + " must be " + expected + ", was '" + value + "'");
  }
}
