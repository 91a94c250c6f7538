package io.statesweep.api.failures;

/**
 * A setting, or a file a setting names (the config file, a layout file, a prices file, an inventory manifest),
 * cannot be used: the message names the setting, key or field, and where its value came from ({@code (from
 * --grace-days)}, {@code (from STATESWEEP_LAYOUT)}, the file's location), such as {@code Invalid sweep.grace-days
 * 'seven' (from --grace-days): ...}. Nothing was read from the export or deleted because of it.
 *
 * <p>An {@link IllegalArgumentException}, as bad settings were before they had a type of their own. The command
 * line exits 2 with {@code stopped=bad_settings} (pipeline/README.md, "The summary line").
 */
public class BadSettingsException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public BadSettingsException(String message) {
    super(message);
  }

  public BadSettingsException(String message, Throwable cause) {
    super(message, cause);
  }
}
