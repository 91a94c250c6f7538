package io.statesweep.config;

import java.util.List;

/**
 * The commands of statesweep, which are also its actions ({@code io.statesweep.api.Actions}), and the settings each
 * takes (as flags on the command line, as options of the action): each setting declares the commands that take
 * it ({@link Setting#commands()}).
 */
public enum Command {
  /** A dry run that writes the report. */
  PLAN("plan"),
  /** The scheduled job, plan then (when not a dry run) execute. */
  RUN("run"),
  /**
   * A reviewed plan, exactly as planned. It lists nothing and prints no {@code would delete} lines; it decides each
   * record again with this run's grace periods (a row may only narrow the plan), so it takes the grace days.
   */
  EXECUTE("execute"),
  /** Records an approval. It reads the tables only (and S3A, for them). */
  APPROVE("approve"),
  /**
   * Undoes a run on a versioned bucket: removes the delete markers it wrote (pipeline/README.md, "Undoing a run"). It
   * reads the run's rows of executions and the keys' versions; it takes the export's bucket and prefix (for the run
   * lock) and the dry run (on by default).
   */
  RESTORE("restore");

  private final String label;

  Command(String label) {
    this.label = label;
  }

  /** The command's name: plan, run, execute, approve, restore. */
  public String label() {
    return label;
  }

  /** The settings the command uses, in the order of {@link Settings#ALL}. */
  public List<Setting<?>> settings() {
    return Settings.ALL.stream().filter(setting -> setting.takenBy(this)).toList();
  }

  /** Whether the command uses {@code setting}. */
  public boolean takes(Setting<?> setting) {
    return setting.takenBy(this);
  }
}
