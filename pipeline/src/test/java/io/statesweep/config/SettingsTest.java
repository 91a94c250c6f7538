package io.statesweep.config;

import static io.statesweep.config.Command.APPROVE;
import static io.statesweep.config.Command.EXECUTE;
import static io.statesweep.config.Command.PLAN;
import static io.statesweep.config.Command.RESTORE;
import static io.statesweep.config.Command.RUN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.execute.ConditionalMode;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.plan.FailOn;
import io.statesweep.testing.ProjectSources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every setting's declaration, pinned in one table (as Trino's {@code TestS3FileSystemConfig.testDefaults} pins a
 * config's defaults): its key, flag, environment variable, default, the reference script's names, whether it is a
 * switch and the commands that take it; then the value each default gives, and README's table of settings against
 * the declarations.
 */
class SettingsTest {
  private static final Set<Command> ALL = EnumSet.allOf(Command.class);
  private static final Set<Command> EXPORT = EnumSet.of(PLAN, RUN, EXECUTE);
  private static final Set<Command> PLANNING = EnumSet.of(PLAN, RUN);
  private static final Set<Command> DELETING = EnumSet.of(RUN, EXECUTE);
  private static final Set<Command> EXPORT_AND_RESTORE = EnumSet.of(PLAN, RUN, EXECUTE, RESTORE);
  private static final Set<Command> DRY_RUN_FIRST = EnumSet.of(PLAN, RUN, RESTORE);
  private static final Set<Command> LOCKING = EnumSet.of(RUN, EXECUTE, RESTORE);
  private static final boolean SWITCH = true;

  /** One setting as declared. */
  private record Row(String key, String flag, String environment, String defaultValue, Set<Command> commands,
      boolean isSwitch, List<String> aliases) {
    static Row of(Setting<?> setting) {
      return new Row(setting.key(), setting.flag(), setting.environment(), setting.defaultValue(),
          EnumSet.copyOf(setting.commands()), setting.isSwitch(), setting.confAliases());
    }
  }

  private static Row row(String key, String flag, String environment, String defaultValue, Set<Command> commands,
      boolean isSwitch, String... aliases) {
    return new Row(key, flag, environment, defaultValue, commands, isSwitch, List.of(aliases));
  }

  private static Row row(String key, String flag, String environment, String defaultValue, Set<Command> commands,
      String... aliases) {
    return row(key, flag, environment, defaultValue, commands, false, aliases);
  }

  /** Every setting, in the order of {@link Settings#ALL} (the order of the help and of the run's record). */
  @Test
  void everySettingsDeclaration() {
    List<Row> expected = List.of(
        row("sweep.bucket", "--bucket", "COGRAM_CLEANUP_BUCKET", null, EXPORT_AND_RESTORE, "bucket"),
        row("sweep.prefix", "--prefix", "COGRAM_CLEANUP_PREFIX", "", EXPORT_AND_RESTORE, "prefix"),
        row("sweep.dry-run", "--dry-run", "COGRAM_CLEANUP_DRY_RUN", "true", DRY_RUN_FIRST, SWITCH, "dry_run"),
        row("sweep.grace-days", "--grace-days", "COGRAM_CLEANUP_GRACE_DAYS", "0", EXPORT, "grace_days"),
        row("sweep.grace-days.by-kind", "--kind-grace-days", "STATESWEEP_KIND_GRACE_DAYS", "", EXPORT),
        row("sweep.region", "--region", "COGRAM_CLEANUP_REGION", null, ALL, "region"),
        row("sweep.workers", "--workers", "COGRAM_CLEANUP_WORKERS", "16", EXPORT, "workers"),
        row("sweep.endpoint", "--endpoint", "STATESWEEP_ENDPOINT", null, ALL),
        row("sweep.path-style", "--path-style", "STATESWEEP_PATH_STYLE", null, ALL, SWITCH),
        row("sweep.warehouse", "--warehouse", "STATESWEEP_WAREHOUSE", "statesweep-warehouse", ALL),
        row("sweep.layout", "--layout", "STATESWEEP_LAYOUT", "cogram", EXPORT),
        row("sweep.allow-bucket-root", "--allow-bucket-root", "STATESWEEP_ALLOW_BUCKET_ROOT", "false",
            EXPORT_AND_RESTORE, SWITCH),
        row("sweep.log.lines", "--log-lines", "STATESWEEP_LOG_LINES", "100", PLANNING),
        row("sweep.state.max-bytes", "--max-state-bytes", "STATESWEEP_MAX_STATE_BYTES", "16777216", EXPORT),
        row("sweep.delete.batch-size", "--batch-size", "STATESWEEP_BATCH_SIZE", "1000", DELETING),
        row("sweep.delete.conditional", "--conditional-deletes", "STATESWEEP_CONDITIONAL_DELETES", "auto", DELETING),
        row("sweep.delete.max-keys-per-second", "--max-deletes-per-second", "STATESWEEP_MAX_DELETES_PER_SECOND", "0",
            DELETING),
        row("sweep.delete.pacing", "--pacing", "STATESWEEP_PACING", "adaptive", DELETING),
        row("sweep.delete.partition-rate", "--partition-deletes-per-second", "STATESWEEP_PARTITION_RATE", "3500",
            DELETING),
        row("sweep.delete.exporter-margin-percent", "--exporter-margin", "STATESWEEP_EXPORTER_MARGIN", "10", DELETING),
        row("sweep.delete.lane-depth", "--lane-depth", "STATESWEEP_LANE_DEPTH", "2", DELETING),
        row("sweep.list.pages-per-task", "--pages-per-task", "STATESWEEP_PAGES_PER_TASK", "100", PLANNING),
        row("sweep.state.reuse", "--reuse-state-files", "STATESWEEP_REUSE_STATE_FILES", "true", PLANNING),
        row("sweep.listing", "--listing", "STATESWEEP_LISTING", "list", PLANNING),
        row("sweep.inventory", "--inventory", "STATESWEEP_INVENTORY", null, PLANNING),
        row("sweep.execute.skip-approval", "--skip-approval", "STATESWEEP_SKIP_APPROVAL", "false", EnumSet.of(EXECUTE),
            SWITCH),
        row("sweep.execute.max-plan-age", "--max-plan-age", "STATESWEEP_MAX_PLAN_AGE", "24h", EnumSet.of(EXECUTE)),
        row("sweep.lock.ttl", "--lock-ttl", "STATESWEEP_LOCK_TTL", "10m", EXPORT_AND_RESTORE),
        row("sweep.lock.unsafe", "--unsafe-lock-without-conditional-writes", "STATESWEEP_UNSAFE_LOCK", "false",
            LOCKING, SWITCH),
        row("sweep.log.progress-seconds", "--progress-seconds", "STATESWEEP_PROGRESS_SECONDS", "30", EXPORT),
        row("sweep.catalog-schema", "--catalog-schema", "STATESWEEP_CATALOG_SCHEMA", null, ALL),
        row("sweep.cost.prices", "--prices", "STATESWEEP_PRICES", "aws", EXPORT),
        row("sweep.fail-on", "--fail-on", "STATESWEEP_FAIL_ON", "none", EXPORT),
        row("sweep.bound.max-deletes", "--max-deletes", "STATESWEEP_MAX_DELETES", "0", DELETING),
        row("sweep.bound.max-bytes", "--max-bytes", "STATESWEEP_MAX_BYTES", "0", DELETING),
        row("sweep.scope.prefixes", "--scope-prefix", "STATESWEEP_SCOPE_PREFIX", "", PLANNING),
        row("sweep.scope.projects", "--projects", "STATESWEEP_PROJECTS", "", PLANNING),
        row("sweep.scope.kinds", "--kinds", "STATESWEEP_KINDS", "", PLANNING));

    assertThat(Settings.ALL.stream().map(Row::of).toList()).containsExactlyElementsOf(expected);
  }

  /** What each default is once read; the settings without a default have no value. */
  @Test
  void theValueOfEveryDefault() {
    Settings settings = Settings.resolveText(Map.of(), Map.of(), null, null);
    Map<Setting<?>, Object> expected = new HashMap<>();
    expected.put(Settings.PREFIX, ExportPrefix.of(""));
    expected.put(Settings.DRY_RUN, true);
    expected.put(Settings.GRACE_DAYS, 0);
    expected.put(Settings.KIND_GRACE_DAYS, "");
    expected.put(Settings.REGION, null);
    expected.put(Settings.WORKERS, 16);
    expected.put(Settings.ENDPOINT, null);
    expected.put(Settings.PATH_STYLE, null);
    expected.put(Settings.WAREHOUSE, "statesweep-warehouse");
    expected.put(Settings.LAYOUT, "cogram");
    expected.put(Settings.ALLOW_BUCKET_ROOT, false);
    expected.put(Settings.LOG_LINES, 100);
    expected.put(Settings.MAX_STATE_BYTES, 16 * 1024 * 1024);
    expected.put(Settings.BATCH_SIZE, 1000);
    expected.put(Settings.CONDITIONAL_DELETES, ConditionalMode.AUTO);
    expected.put(Settings.MAX_DELETES_PER_SECOND, 0);
    expected.put(Settings.PACING, true);
    expected.put(Settings.PARTITION_DELETES_PER_SECOND, 3500);
    expected.put(Settings.EXPORTER_MARGIN, 10);
    expected.put(Settings.LANE_DEPTH, 2);
    expected.put(Settings.PAGES_PER_TASK, 100);
    expected.put(Settings.REUSE_STATE_FILES, true);
    expected.put(Settings.LISTING, PlanOptions.Listing.LIST);
    expected.put(Settings.INVENTORY, null);
    expected.put(Settings.SKIP_APPROVAL, false);
    expected.put(Settings.MAX_PLAN_AGE, Duration.ofHours(24));
    expected.put(Settings.LOCK_TTL, Duration.ofMinutes(10));
    expected.put(Settings.UNSAFE_LOCK, false);
    expected.put(Settings.PROGRESS_SECONDS, 30);
    expected.put(Settings.CATALOG_SCHEMA, null);
    expected.put(Settings.PRICES, "aws");
    expected.put(Settings.FAIL_ON, FailOn.NONE);
    expected.put(Settings.MAX_DELETES, 0);
    expected.put(Settings.MAX_BYTES, 0L);
    expected.put(Settings.SCOPE_PREFIXES, List.of());
    expected.put(Settings.SCOPE_PROJECTS, List.of());
    expected.put(Settings.SCOPE_KINDS, List.of());

    assertThat(expected.keySet()).containsExactlyInAnyOrderElementsOf(
        Settings.ALL.stream().filter(setting -> setting != Settings.BUCKET).toList());
    expected.forEach((setting, value) -> assertThat((Object) settings.get(setting)).as(setting.key()).isEqualTo(value));
    assertThatThrownBy(() -> settings.get(Settings.BUCKET)).hasMessage("Missing bucket: give --bucket, set"
        + " COGRAM_CLEANUP_BUCKET, or put sweep.bucket in the --config-file");
  }

  /** A command's settings are those that declare it, in the table's order. */
  @Test
  void eachCommandTakesTheSettingsThatDeclareIt() {
    for (Command command : Command.values()) {
      assertThat(command.settings()).as(command.label())
          .containsExactlyElementsOf(Settings.ALL.stream().filter(setting -> setting.commands().contains(command))
              .toList());
    }
    assertThat(APPROVE.settings()).containsExactly(Settings.REGION, Settings.ENDPOINT, Settings.PATH_STYLE,
        Settings.WAREHOUSE, Settings.CATALOG_SCHEMA);
    assertThat(EXECUTE.takes(Settings.DRY_RUN)).isFalse();
    assertThat(RESTORE.settings()).containsExactly(Settings.BUCKET, Settings.PREFIX, Settings.DRY_RUN, Settings.REGION,
        Settings.ENDPOINT, Settings.PATH_STYLE, Settings.WAREHOUSE, Settings.ALLOW_BUCKET_ROOT, Settings.LOCK_TTL,
        Settings.UNSAFE_LOCK, Settings.CATALOG_SCHEMA);
    assertThat(Arrays.stream(Command.values()).map(Command::label)).containsExactly("plan", "run", "execute",
        "approve", "restore");
  }

  /** The range is written once: the parser checks it, and the help and the message of a bad value say it. */
  @Test
  void theHelpSaysTheRangeTheParserChecks() {
    assertThat(Settings.WORKERS.help()).isEqualTo("state files read at a time in each Spark task (1-1024)");
    assertThat(Settings.BATCH_SIZE.help()).isEqualTo("keys per DeleteObjects request (1-1000)");
    assertThat(Settings.CONDITIONAL_DELETES.help()).startsWith("auto, on or off: delete each key only if");
    assertThat(Settings.LISTING.help()).startsWith("list or inventory: ");
    assertThat(Settings.LOG_LINES.help()).startsWith("how many 'would delete' lines to print: 0-1000000, or 'all'");
    assertThat(Settings.ALL).allSatisfy(setting -> assertThat(setting.help()).as(setting.key())
        .doesNotContain(Setting.RANGE).isNotBlank());

    Settings settings = Settings.resolveText(Map.of("--workers", "0", "--conditional-deletes", "maybe"), Map.of(),
        null, null);
    assertThatThrownBy(() -> settings.get(Settings.WORKERS))
        .hasMessage("Invalid sweep.workers '0' (from --workers): must be from 1 to 1024");
    assertThatThrownBy(() -> settings.get(Settings.CONDITIONAL_DELETES))
        .hasMessage("Invalid sweep.delete.conditional 'maybe' (from --conditional-deletes): use auto, on or off");
  }

  /**
   * The table under "Settings" of jobs/README.md lists every setting, in order, with its flag, variable, key and
   * default.
   */
  @Test
  void readmesTableOfSettingsIsTheDeclarations() {
    String readme = ProjectSources.read(ProjectSources.ROOT.resolve("jobs/README.md"));
    String section = readme.substring(readme.indexOf("\n## Settings\n"));
    section = section.substring(0, section.indexOf("\n## ", 1));
    List<String[]> rows = new ArrayList<>();
    for (String line : section.split("\n")) {
      if (line.startsWith("| `--")) {
        rows.add(Arrays.stream(line.substring(1, line.length() - 1).split(" \\| ")).map(String::trim)
            .toArray(String[]::new));
      }
    }

    assertThat(rows).hasSameSizeAs(Settings.ALL);
    for (int i = 0; i < rows.size(); i++) {
      Setting<?> setting = Settings.ALL.get(i);
      String[] row = rows.get(i);
      assertThat(row[0]).as("flag").startsWith("`" + setting.flag() + "`");
      assertThat(row[1]).as(setting.flag()).isEqualTo("`" + setting.environment() + "`");
      assertThat(row[2]).as(setting.flag()).isEqualTo("`" + setting.key() + "`");
      String defaultValue = setting.defaultValue();
      if (defaultValue == null) {
        assertThat(row[3]).as(setting.flag()).doesNotStartWith("`").doesNotStartWith("empty");
      } else if (defaultValue.isEmpty()) {
        assertThat(row[3]).as(setting.flag()).startsWith("empty");
      } else {
        assertThat(row[3]).as(setting.flag()).startsWith("`" + defaultValue + "`");
      }
    }
    Set<String> aliases = new TreeSet<>();
    Settings.ALL.forEach(setting -> aliases.addAll(setting.confAliases()));
    String names = section.substring(section.indexOf("the reference script's names ("));
    names = names.substring(names.indexOf('(') + 1, names.indexOf(')'));
    assertThat(new LinkedHashSet<>(Arrays.stream(names.split(",")).map(name -> name.trim().replace("`", ""))
        .toList())).containsExactlyInAnyOrderElementsOf(aliases);
  }
}
