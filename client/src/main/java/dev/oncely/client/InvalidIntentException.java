package dev.oncely.client;

/**
 * An {@link IntentSpec} setting was refused: the message names the setting and the rule, never a
 * key, a payload or a credential. Thrown by the builder before anything is stored or sent.
 */
public class InvalidIntentException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** The name of the setting that was refused. */
  private final String setting;

  /** Creates the exception for {@code setting} with a message stating the broken rule. */
  public InvalidIntentException(String setting, String message) {
    super(setting + ": " + message);
    this.setting = setting;
  }

  /** Creates the exception with the parser's or engine's failure as the cause. */
  public InvalidIntentException(String setting, String message, Throwable cause) {
    super(setting + ": " + message, cause);
    this.setting = setting;
  }

  /** The name of the refused setting, for example {@code "url"} or {@code "body"}. */
  public String setting() {
    return setting;
  }
}
