package io.statesweep.jobs;

import static io.statesweep.jobs.CommandOutput.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.config.Command;
import io.statesweep.config.Setting;
import io.statesweep.config.Settings;
import io.statesweep.spark.Statesweep;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** The command line's parser (picocli, {@link Commands}) and what the commands do before any request. No Spark. */
class CommandsTest {
  private static final String STOPPED_DRY_RUN = "summary: dry_run=true complete=false state_files_scanned=0"
      + " records_deleted=0 child_keys_deleted=0 records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0 errors=0"
      + " stopped=bad_settings";

  @Test
  void parsesFlagsWithSpacesOrEqualsAndSwitches() {
    Commands.Invocation invocation = Commands.parse(new String[] {"plan", "--bucket", "b", "--prefix=cogram/",
        "--allow-bucket-root", "--config-file", "x.properties"});

    assertThat(invocation.command()).isEqualTo(Command.PLAN);
    assertThat(invocation.help()).isFalse();
    assertThat(invocation.flags()).containsExactlyInAnyOrderEntriesOf(
        Map.of("--bucket", "b", "--prefix", "cogram/", "--allow-bucket-root", "true"));
    assertThat(invocation.configFile()).isEqualTo("x.properties");
  }

  @Test
  void aSwitchTakesAFollowingBooleanAsItsValue() {
    Commands.Invocation invocation = Commands.parse(new String[] {"execute", "--run-id", "x", "--skip-approval", "true",
        "--allow-bucket-root", "false", "--path-style"});

    assertThat(invocation.runId()).isEqualTo("x");
    assertThat(invocation.flags()).containsExactlyInAnyOrderEntriesOf(Map.of("--skip-approval", "true",
        "--allow-bucket-root", "false", "--path-style", "true"));
  }

  @Test
  void executeIsDryRunFalse() {
    assertThat(Commands.parse(new String[] {"run", "--execute"}).flags()).isEqualTo(Map.of("--dry-run", "false"));
    assertThat(Commands.parse(new String[] {"plan", "--execute"}).flags()).isEqualTo(Map.of("--dry-run", "false"));
    assertThat(Commands.parse(new String[] {"plan", "--dry-run"}).flags()).isEqualTo(Map.of("--dry-run", "true"));
    assertThat(Commands.parse(new String[] {"plan", "--dry-run=0"}).flags()).isEqualTo(Map.of("--dry-run", "0"));
    assertThat(Commands.parse(new String[] {"plan", "--dry-run", "false", "--bucket", "b"}).flags())
        .isEqualTo(Map.of("--dry-run", "false", "--bucket", "b"));
    assertThatThrownBy(() -> Commands.parse(new String[] {"run", "--execute", "--dry-run", "true"}))
        .hasMessage("Option --dry-run is given twice (--execute is --dry-run false)");
  }

  /** picocli holds no defaults: a flag not given is not there, so the environment and the config file still count. */
  @Test
  void onlyTheFlagsGivenAreCollected() {
    Commands.Invocation invocation = Commands.parse(new String[] {"approve", "--run-id", "r", "--by", "ana"});

    assertThat(invocation.flags()).isEmpty();
    assertThat(invocation.configFile()).isNull();
    assertThat(invocation.by()).isEqualTo("ana");
    assertThat(invocation.note()).isNull();
  }

  @Test
  void unknownOptionsAreErrorsThatListTheKnownOnes() {
    assertThatThrownBy(() -> Commands.parse(new String[] {"plan", "--bukcet", "b"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Unknown option: '--bukcet'; the options of plan: --bucket, --prefix, --dry-run,"
            + " --execute, --grace-days,");
    assertThatThrownBy(() -> Commands.parse(new String[] {"plan", "--bukcet=b"}))
        .hasMessageStartingWith("Unknown option: '--bukcet'; the options of plan:");
    assertThatThrownBy(() -> Commands.parse(new String[] {"plan", "--bucket"}))
        .hasMessage("Option --bucket needs a value");
    assertThatThrownBy(() -> Commands.parse(new String[] {"plan", "--bucket", "a", "--bucket", "b"}))
        .hasMessage("Option --bucket is given twice");
    assertThatThrownBy(() -> Commands.parse(new String[] {"plan", "b"}))
        .hasMessage("Unexpected argument 'b': options start with --; see plan --help");
  }

  /** {@code approve --grace-days 3} was accepted and ignored before: an option the command does not use is an error. */
  @Test
  void anOptionTheCommandDoesNotUseIsAnError() {
    CommandOutput approve = run(Map.of(), "approve", "--run-id", "20990101T000000Z-000000", "--by", "ana",
        "--grace-days", "3");

    assertThat(approve.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(approve.errors()).isEqualTo("statesweep: Unknown option: '--grace-days' (approve does not use it); the"
        + " options of approve: --run-id, --by, --note, --digest, --region, --endpoint, --path-style, --warehouse,"
        + " --catalog-schema, --config-file\n");
    assertThat(approve.text()).isEmpty();

    CommandOutput execute = run(Map.of(), "execute", "--run-id", "20990101T000000Z-000000", "--log-lines", "1");

    assertThat(execute.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(execute.errors()).startsWith("statesweep: Unknown option: '--log-lines' (execute does not use it); the"
        + " options of execute: --run-id, --latest-approved, --bucket, --prefix, --grace-days,");
    assertThat(execute.text()).isEqualTo(STOPPED_DRY_RUN.replace("dry_run=true", "dry_run=false") + "\n");

    assertThatThrownBy(() -> Commands.parse(new String[] {"execute", "--run-id", "r", "--dry-run", "false"}))
        .hasMessageStartingWith("Unknown option: '--dry-run' (execute does not use it)");
    assertThatThrownBy(() -> Commands.parse(new String[] {"execute", "--run-id", "r", "--execute"}))
        .hasMessageStartingWith("Unknown option: '--execute' (execute does not use it)");
    assertThatThrownBy(() -> Commands.parse(new String[] {"plan", "--skip-approval"}))
        .hasMessageStartingWith("Unknown option: '--skip-approval' (plan does not use it)");
    assertThatThrownBy(() -> Commands.parse(new String[] {"approve", "--bucket", "b"}))
        .hasMessageStartingWith("Unknown option: '--bucket' (approve does not use it)");
    assertThatThrownBy(() -> Commands.parse(new String[] {"plan", "--by", "ana"}))
        .hasMessageStartingWith("Unknown option: '--by' (plan does not use it)");
  }

  @Test
  void badSettingsExitWithTwoAndAMessageBeforeAnyRequest() {
    CommandOutput output = run(Map.of("COGRAM_CLEANUP_DRY_RUN", "maybe"), "plan", "--bucket", "b", "--prefix", "p");

    assertThat(output.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(output.errors()).isEqualTo(
        "statesweep: Invalid sweep.dry-run 'maybe' (from COGRAM_CLEANUP_DRY_RUN): use true, false, 1 or 0\n");
    assertThat(output.text()).isEqualTo(STOPPED_DRY_RUN + "\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"plan", "run", "execute", "approve"})
  void refusesSparkSubmitsConfFlagAndNamesTheConfigFileFlag(String command) {
    CommandOutput output = run(Map.of(), command, "--conf", "sweep.properties", "--bucket", "b", "--prefix", "p");

    assertThat(output.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(output.errors()).isEqualTo("statesweep: Option --conf is spark-submit's flag"
        + " (it goes before the jar); statesweep's settings file is --config-file FILE\n");
    assertThatThrownBy(() -> Commands.parse(new String[] {"plan", "--conf=spark.ui.enabled=false"}))
        .hasMessage("Option --conf is spark-submit's flag (it goes before the jar); statesweep's settings file is"
            + " --config-file FILE");
    assertThatThrownBy(() -> Commands.parse(new String[] {"plan", "--conf"}))
        .hasMessageStartingWith("Option --conf is spark-submit's flag");
    assertThatThrownBy(() -> Commands.parse(new String[] {"plan", "--config-file", "a", "--config-file", "b"}))
        .hasMessage("Option --config-file is given twice");
  }

  @Test
  void planRefusesToRunWithDryRunFalse() {
    CommandOutput output = run(Map.of(), "plan", "--bucket", "b", "--prefix", "p", "--execute");

    assertThat(output.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(output.errors()).isEqualTo("statesweep: The plan command never deletes, but dry_run is false (from"
        + " --dry-run): use run --execute to delete, or execute --run-id for a reviewed plan\n");
  }

  @Test
  void helpListsEveryOptionWithItsDefaultAndEnvironmentVariable() {
    CommandOutput output = run(Map.of(), "plan", "--help");

    assertThat(output.code()).isZero();
    assertThat(output.text()).startsWith("usage: statesweep plan [options]\n")
        .contains("--grace-days=V", "default: 0; env COGRAM_CLEANUP_GRACE_DAYS; config-file key sweep.grace-days")
        .containsPattern("--config-file=FILE +a properties file of sweep\\.\\* keys")
        .doesNotContain("--conf ")
        .contains("--workers=V", "default: 16; env COGRAM_CLEANUP_WORKERS")
        .contains("--execute", "same as --dry-run false")
        .contains("Credentials come only from the AWS SDK's default provider chain");
  }

  /** Each command's help is generated from the settings it takes, and shows no other. */
  @ParameterizedTest
  @EnumSource(Command.class)
  void eachCommandsHelpShowsItsOwnSettingsWithTheirDefaultsAndEnvironmentVariables(Command command) {
    CommandOutput output = run(Map.of(), command.label(), "--help");

    assertThat(output.code()).isZero();
    String help = output.text();
    for (Setting<?> setting : Settings.ALL) {
      String defaults = "default: " + (setting.defaultValue() == null ? "(none)" : setting.defaultValue().isEmpty()
          ? "(empty)" : setting.defaultValue()) + "; env " + setting.environment() + "; config-file key " + setting.key();
      if (command.takes(setting)) {
        assertThat(help).as(setting.flag()).containsPattern("\n +" + setting.flag() + "[=\\[]").contains(defaults);
      } else {
        assertThat(help).as(setting.flag()).doesNotContainPattern("\n +" + setting.flag() + "[=\\[]")
            .doesNotContain(defaults);
      }
    }
    assertThat(Commands.usage(command)).isEqualTo(help);
    assertThat(run(Map.of(), "help", command.label()).text()).isEqualTo(help);
  }

  /**
   * A command's options are its settings' declarations, in the table's order (with the options of the command
   * itself): the flag, the help, whether it is a switch.
   */
  @ParameterizedTest
  @EnumSource(Command.class)
  void eachCommandsOptionsAreItsSettingsDeclarations(Command command) {
    CommandSpec spec = Commands.tree().getSubcommands().get(command.label()).getCommandSpec();
    Set<String> ownOptions = Set.of("--run-id", "--latest-approved", "--by", "--note", "--digest", "--record",
        "--execute", "--config-file", "--help");
    List<OptionSpec> settingOptions = spec.options().stream()
        .filter(option -> !ownOptions.contains(option.longestName())).toList();

    assertThat(settingOptions.stream().map(OptionSpec::longestName).toList())
        .containsExactlyElementsOf(command.settings().stream().map(Setting::flag).toList());
    for (int i = 0; i < settingOptions.size(); i++) {
      Setting<?> setting = command.settings().get(i);
      OptionSpec option = settingOptions.get(i);
      assertThat(option.description()[0]).as(setting.flag()).isEqualTo(setting.help().replace("%", "%%"));
      assertThat(option.arity().min()).as(setting.flag()).isEqualTo(setting.isSwitch() ? 0 : 1);
    }
  }

  @Test
  void theUsageListsTheCommandsAndAnUnknownCommandIsAnError() {
    for (String[] args : new String[][] {{}, {"help"}, {"--help"}, {"-h"}}) {
      CommandOutput output = run(Map.of(), args);
      assertThat(output.code()).isZero();
      assertThat(output.text()).startsWith("usage: statesweep <command> [options]\n")
          .contains("\n  plan ", "\n  run ", "\n  execute ", "\n  approve ", "\n  help ")
          .doesNotContain("demo", "bench-delete");
    }

    CommandOutput unknown = run(Map.of(), "plna", "--bucket", "b");

    assertThat(unknown.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(unknown.errors()).startsWith("Unknown command 'plna'.\nusage: statesweep <command> [options]\n");
    assertThat(unknown.text()).isEmpty();
  }

  /** The precedence stays with Settings.resolve: flag, then environment, then config file, then default. */
  @Test
  void aFlagWinsOverTheEnvironmentWhichWinsOverTheConfigFileWhichWinsOverTheDefault(@TempDir Path dir)
      throws IOException {
    Path conf = Files.writeString(dir.resolve("sweep.properties"),
        "sweep.grace-days=9\nsweep.workers=4\nsweep.log.lines=7\nsweep.bucket=from-file\n");
    Map<String, String> environment = Map.of("COGRAM_CLEANUP_GRACE_DAYS", "5", "COGRAM_CLEANUP_WORKERS", "3");
    Statesweep statesweep = Statesweep.withSessions((command, settings) -> {
      throw new AssertionError("no session");
    });

    Settings settings = StatesweepCli.configure(statesweep.run(), Commands.parse(new String[] {"run", "--grace-days",
        "2", "--config-file", conf.toString()}), environment).settings();

    assertThat(settings.value(Settings.GRACE_DAYS)).isEqualTo(new Settings.Value("2", "--grace-days"));
    assertThat(settings.value(Settings.WORKERS)).isEqualTo(new Settings.Value("3", "COGRAM_CLEANUP_WORKERS"));
    assertThat(settings.value(Settings.LOG_LINES)).isEqualTo(new Settings.Value("7", conf + ": sweep.log.lines"));
    assertThat(settings.value(Settings.BUCKET)).isEqualTo(new Settings.Value("from-file", conf + ": sweep.bucket"));
    assertThat(settings.value(Settings.BATCH_SIZE)).isEqualTo(new Settings.Value("1000", "default"));
    assertThat(settings.value(Settings.DRY_RUN)).isEqualTo(new Settings.Value("true", "default"));
  }

  /** main hands the launcher the summary line the run returned (no watching of stdout). */
  @Test
  void aRunEndsWithItsSummaryLineAndOtherCommandsWithNone() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream errors = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    StatesweepCli.Ended plan = StatesweepCli.execute(new String[] {"plan", "--bucket", "b", "--prefix", "p"},
        Map.of("COGRAM_CLEANUP_DRY_RUN", "maybe"), print, errors);
    StatesweepCli.Ended approve = StatesweepCli.execute(new String[] {"approve", "--by", "ana"}, Map.of(), print,
        errors);
    StatesweepCli.Ended help = StatesweepCli.execute(new String[] {"help"}, Map.of(), print, errors);

    assertThat(plan).isEqualTo(new StatesweepCli.Ended(StatesweepCli.BAD_SETTINGS, STOPPED_DRY_RUN));
    assertThat(approve).isEqualTo(new StatesweepCli.Ended(StatesweepCli.BAD_SETTINGS, null));
    assertThat(help).isEqualTo(new StatesweepCli.Ended(StatesweepCli.OK, null));
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith(STOPPED_DRY_RUN + "\nusage: statesweep <command>");
  }
}
