package io.statesweep.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.api.failures.BadSettingsException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Each command has its own options, and they read the settings the command takes (jobs/README.md, "Settings"): a value
 * its command never uses cannot stop it, however wrong that value is.
 */
class CommandOptionsTest {
  private static final Map<String, String> EXPORT = Map.of("--bucket", "b", "--prefix", "cogram/");
  private static final List<String> WRONG = List.of("not-a-value", "-5", "99999999999999999999");
  /** The settings of the deletes a plan prices ({@link PlanOptions#deletes()}): a plan reads them too. */
  private static final Set<Setting<?>> PRICED = Set.of(Settings.BATCH_SIZE, Settings.CONDITIONAL_DELETES,
      Settings.MAX_DELETES_PER_SECOND, Settings.UNSAFE_LOCK, Settings.MAX_DELETES, Settings.MAX_BYTES, Settings.PACING,
      Settings.PARTITION_DELETES_PER_SECOND, Settings.EXPORTER_MARGIN, Settings.LANE_DEPTH);

  /** A value the setting refuses, or null where it takes every text. */
  private static String refused(Setting<?> setting) {
    for (String value : WRONG) {
      try {
        setting.parse(new Settings.Value(value, "test"));
      } catch (BadSettingsException e) {
        return value;
      }
    }
    return null;
  }

  /** The export's flags, and a refused value for every setting outside {@code read} that has one. */
  private static Map<String, String> wrongOutside(Set<Setting<?>> read) {
    Map<String, String> flags = new LinkedHashMap<>(EXPORT);
    for (Setting<?> setting : Settings.ALL) {
      String wrong = refused(setting);
      if (!read.contains(setting) && wrong != null) {
        flags.put(setting.flag(), wrong);
      }
    }
    return flags;
  }

  @Test
  void executeReadsOnlyTheSettingsExecuteTakes() {
    Map<String, String> flags = wrongOutside(Set.copyOf(Command.EXECUTE.settings()));

    ExecuteOptions options = ExecuteOptions.from(Settings.resolve(flags, Map.of(), null));

    // --dry-run, --log-lines, --pages-per-task, --state-reuse, --listing and the scope flags: all wrong, none read.
    assertThat(flags.keySet()).contains(Settings.DRY_RUN.flag(), Settings.LOG_LINES.flag(),
        Settings.PAGES_PER_TASK.flag(), Settings.LISTING.flag());
    assertThat(options.export().bucket()).isEqualTo("b");
    assertThatThrownBy(() -> RunOptions.from(Settings.resolve(flags, Map.of(), null)))
        .isInstanceOf(BadSettingsException.class);
  }

  @Test
  void planReadsTheSettingsPlanTakesAndTheDeletesItPrices() {
    Set<Setting<?>> read = new HashSet<>(Command.PLAN.settings());
    read.addAll(PRICED);
    Map<String, String> flags = wrongOutside(read);

    PlanOptions options = PlanOptions.from(Settings.resolve(flags, Map.of(), null));

    assertThat(flags.keySet()).contains(Settings.SKIP_APPROVAL.flag(), Settings.MAX_PLAN_AGE.flag());
    assertThat(options.export().prefix().value()).isEqualTo("cogram/");
    assertThatThrownBy(() -> ExecuteOptions.from(Settings.resolve(flags, Map.of(), null)))
        .isInstanceOf(BadSettingsException.class);
  }

  @Test
  void aPlanAloneIsPricedForTheDefaultDeletes() {
    PlanOptions plan = PlanOptions.from(Settings.resolve(EXPORT, Map.of(), null));

    assertThat(plan.deletes().batchSize()).isEqualTo(1000);
    assertThat(plan.deletes().maxDeletes()).isZero();
  }

  @Test
  void aRunsPlanAndExecuteShareTheExportAndTheDeletes() {
    Map<String, String> flags = new LinkedHashMap<>(EXPORT);
    flags.put("--batch-size", "10");
    flags.put("--grace-days", "3");
    flags.put("--dry-run", "false");

    RunOptions run = RunOptions.from(Settings.resolve(flags, Map.of(), null));

    assertThat(run.plan().export()).isSameAs(run.execute().export()).isSameAs(run.export());
    assertThat(run.plan().deletes().batchSize()).isEqualTo(10);
    assertThat(run.execute().deletes()).isSameAs(run.plan().deletes());
    assertThat(run.export().graceDays()).isEqualTo(3);
    assertThat(run.dryRun()).isFalse();
    assertThat(run.execute().skipApproval()).isFalse();
  }

  @Test
  void aRunsPlanAndExecuteCannotActOnTwoExports() {
    RunOptions a = RunOptions.from(Settings.resolve(EXPORT, Map.of(), null));
    Map<String, String> other = new LinkedHashMap<>(EXPORT);
    other.put("--bucket", "other");
    RunOptions b = RunOptions.from(Settings.resolve(other, Map.of(), null));

    assertThatThrownBy(() -> new RunOptions(a.plan(), b.execute()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a run's plan and execute act on one export with one way of deleting");
  }
}
