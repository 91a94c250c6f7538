package io.statesweep.spark;

import static java.util.Objects.requireNonNull;

import io.statesweep.spark.run.HadoopFiles;
import io.statesweep.api.Action;
import io.statesweep.api.Actions;
import io.statesweep.api.Approval;
import io.statesweep.api.ApproveAction;
import io.statesweep.api.ExecuteAction;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.ExportAction;
import io.statesweep.api.LogLine;
import io.statesweep.api.PlanAction;
import io.statesweep.api.PlanResult;
import io.statesweep.api.RestoreAction;
import io.statesweep.api.RestoreResult;
import io.statesweep.api.RunAction;
import io.statesweep.api.RunResult;
import io.statesweep.api.Tables;
import io.statesweep.api.failures.BadSettingsException;
import io.statesweep.config.CatalogSchema;
import io.statesweep.config.Command;
import io.statesweep.store.FileSource;
import io.statesweep.config.ExecuteOptions;
import io.statesweep.config.ExportOptions;
import io.statesweep.config.PlanOptions;
import io.statesweep.config.RestoreOptions;
import io.statesweep.config.RunOptions;
import io.statesweep.config.Setting;
import io.statesweep.config.Settings;
import io.statesweep.s3.S3Settings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;

/**
 * The actions of statesweep, for notebooks and for Scala, Python and Java callers, shaped like Iceberg's
 * {@code SparkActions}: {@code Statesweep.get(spark).plan().bucket("archive").prefix("cogram/").execute()}.
 * The command line is a caller of the same actions.
 *
 * <p>Each action takes its settings fluently: the setters named after the common settings, {@link
 * Action#option} for any setting by its conf key ({@code sweep.grace-days}) or its flag ({@code --grace-days}),
 * and {@link Action#configFile}. {@link Action#execute()} resolves them as the command line does ({@link
 * Settings#resolve}): what was set on the action wins over the environment variable, which wins over the
 * config file (read through Hadoop's FileSystem: a local path, {@code s3://}, {@code s3a://}, {@code dbfs:/},
 * {@code file:}), which wins over the default. A setting the action does not use is refused ({@link
 * Command#settings()} lists each action's).
 *
 * <p>Results are immutable records that carry their counts; a plan or execute that completes with errors is a
 * result ({@code exitCode() == 1}), not an exception. Failures are exceptions, each its own type of
 * {@code io.statesweep.api} whose message says what to do: bad settings (or a file a setting names) are
 * {@link io.statesweep.api.failures.BadSettingsException}, a plan that execute refuses (none with that run id, not approved,
 * changed since, too old, ...) {@link io.statesweep.api.failures.PlanRefusedException}; both are
 * {@link IllegalArgumentException}s, as they were before they had types of their own. Another run holding the
 * export's run lock is {@link io.statesweep.api.failures.RunLockException.Held}, a run that deletes without the lock's
 * permissions {@link io.statesweep.api.failures.RunLockException.Denied}, a run that deletes on a store that cannot hold the
 * lock {@link io.statesweep.api.failures.RunLockException.Untrusted}, any other failure to take it
 * {@link io.statesweep.api.failures.RunLockException.Unavailable}; a request to the store that failed is
 * {@link io.statesweep.store.StoreException}. Anything else is a bug.
 *
 * <p>From a Databricks or PySpark notebook:
 * <pre>{@code
 * spark._jvm.io.statesweep.spark.Statesweep.get(spark._jsparkSession).approve(run_id) \
 *     .warehouse(warehouse).by(user).note("looked at plan_summary").execute().line()
 * }</pre>
 */
public final class Statesweep implements Actions {

  /** Makes the session of an action once its settings are resolved (the command line's own sessions). */
  @FunctionalInterface
  public interface Sessions {
    SparkSession session(Command command, Settings settings);
  }

  /** The name under which {@link Action#option} takes the config file. */
  public static final String CONFIG_FILE = "--config-file";

  private final SparkSession spark;
  private final Sessions sessions;

  private Statesweep(SparkSession spark, Sessions sessions) {
    this.spark = spark;
    this.sessions = sessions;
  }

  /** The actions on {@code spark}: they run in it and read their files with its Hadoop configuration. */
  public static Statesweep get(SparkSession spark) {
    requireNonNull(spark, "spark is null");
    return new Statesweep(spark, null);
  }

  /** The actions on the active Spark session (the notebook's). */
  public static Statesweep get() {
    return get(SparkSession.active());
  }

  /**
   * The actions on a session made for each from its resolved settings: the command line makes its own
   * (local, or the cluster's, with S3A pointed at an S3-compatible endpoint), which needs the settings first.
   */
  public static Statesweep withSessions(Sessions sessions) {
    return new Statesweep(null, requireNonNull(sessions, "sessions is null"));
  }

  @Override
  public PlanAction plan() {
    return new Plan(this);
  }

  @Override
  public RunAction run() {
    return new Run(this);
  }

  @Override
  public ExecuteAction execute(String runId) {
    if (runId == null || runId.isBlank()) {
      throw new BadSettingsException("Missing --run-id: the run_id of the plan to execute (table runs), or"
          + " --latest-approved for the newest approved plan of the bucket and prefix");
    }
    return new Execute(this, runId.trim());
  }

  @Override
  public ExecuteAction executeLatestApproved() {
    return new Execute(this, null);
  }

  @Override
  public ApproveAction approve(String runId) {
    if (runId == null || runId.isBlank()) {
      throw new BadSettingsException("Missing --run-id: the run_id of the plan you reviewed (table runs)");
    }
    return new Approve(this, runId.trim());
  }

  @Override
  public RestoreAction restore(String runId) {
    if (runId == null || runId.isBlank()) {
      throw new BadSettingsException("Missing --run-id: the run_id of the execute to undo (its summary line, or table"
          + " runs where command = 'execute')");
    }
    return new Restore(this, runId.trim());
  }

  private SparkSession session(Command command, Settings settings) {
    return spark != null ? spark : requireNonNull(sessions.session(command, settings), "session is null");
  }

  /**
   * Hadoop's FileSystem for the files the settings name, made on the first read (a built-in layout reads
   * nothing): the session's configuration, or before there is a session the one Spark would make; S3A goes to
   * the settings' S3-compatible endpoint unless the Spark conf says where.
   */
  private FileSource files(Settings reach) {
    return (location, maxBytes) -> {
      S3Settings s3 = ExportOptions.s3(reach);
      if (spark == null) {
        return HadoopFiles.beforeTheRun(s3).read(location, maxBytes);
      }
      Configuration configuration = new Configuration(spark.sparkContext().hadoopConfiguration());
      if (!spark.sparkContext().getConf().contains("spark.hadoop.fs.s3a.endpoint")) {
        HadoopFiles.s3aEndpoint(s3).forEach(configuration::set);
      }
      return new HadoopFiles(configuration).read(location, maxBytes);
    };
  }

  /** The tables of the resolved settings, registered by name in {@code --catalog-schema} when it is set. */
  static Tables tables(Settings settings) {
    CatalogSchema catalogSchema = settings.get(Settings.CATALOG_SCHEMA);
    return new Tables(settings.get(Settings.WAREHOUSE), catalogSchema == null ? null : catalogSchema.toString());
  }

  /**
   * An action's settings, resolved as the command line resolves them ({@link Settings#resolve}), and the session it
   * runs in.
   *
   * @param <A> the action's interface, for the fluent setters
   * @param <R> what it returns
   */
  public abstract static class Configured<A extends Action<A, R>, R> implements Action<A, R> {
    private final Statesweep statesweep;
    private final Command command;
    /** The plan the action is on (execute, approve); null for the actions that plan, and --latest-approved. */
    private final String runId;
    private final Map<String, String> flags = new LinkedHashMap<>();
    private String configFile;
    private Map<String, String> environment = System.getenv();
    private Settings resolved;

    Configured(Statesweep statesweep, Command command, String runId) {
      this.statesweep = statesweep;
      this.command = command;
      this.runId = runId;
    }

    @SuppressWarnings("unchecked")
    private A self() {
      resolved = null;
      return (A) this;
    }

    public Command command() {
      return command;
    }

    /** The run id of the plan the action is on, as given (the public {@code runId()} of execute and approve). */
    String planRunId() {
      return runId;
    }

    @Override
    public A option(String name, String value) {
      requireNonNull(name, "name is null");
      if (name.equals(CONFIG_FILE)) {
        return configFile(value);
      }
      Setting<?> setting = setting(name);
      if (value == null) {
        flags.remove(setting.flag());
      } else {
        flags.put(setting.flag(), value);
      }
      return self();
    }

    @Override
    public A options(Map<String, String> options) {
      requireNonNull(options, "options is null");
      options.forEach(this::option);
      return self();
    }

    @Override
    public A configFile(String location) {
      this.configFile = location;
      return self();
    }

    @Override
    public A environment(Map<String, String> variables) {
      this.environment = Map.copyOf(requireNonNull(variables, "variables is null"));
      return self();
    }

    @Override
    public A warehouse(String warehouse) {
      return option(Settings.WAREHOUSE.flag(), warehouse);
    }

    @Override
    public A catalogSchema(String schema) {
      return option(Settings.CATALOG_SCHEMA.flag(), schema);
    }

    @Override
    public Settings settings() {
      if (resolved == null) {
        Settings reach = Settings.resolve(flags, environment, null);
        resolved = configFile == null ? reach
            : Settings.resolve(flags, environment, configFile, statesweep.files(reach));
      }
      return resolved;
    }


    /** Where a {@code --layout} file is read from: as the config file is. */
    FileSource files(Settings settings) {
      return statesweep.files(settings);
    }

    SparkSession session(Settings settings) {
      return statesweep.session(command, settings);
    }

    private Setting<?> setting(String name) {
      String lookup = name.trim().toLowerCase(Locale.ROOT);
      for (Setting<?> setting : Settings.ALL) {
        if (setting.flag().equals(lookup) || setting.key().equals(lookup)) {
          if (!command.takes(setting)) {
            throw new BadSettingsException("Unknown option '" + name + "' for " + command.label() + "; its options: "
                + String.join(", ", names()));
          }
          return setting;
        }
      }
      throw new BadSettingsException("Unknown option '" + name + "' for " + command.label() + "; its options: "
          + String.join(", ", names()));
    }

    private List<String> names() {
      List<String> names = new ArrayList<>();
      command.settings().forEach(setting -> names.add(setting.flag()));
      names.add(CONFIG_FILE);
      return names;
    }
  }

  /** Settings of the actions that read the export. */
  abstract static class OnExport<A extends ExportAction<A, R>, R> extends Configured<A, R>
      implements ExportAction<A, R> {
    private Consumer<LogLine> lines = line -> { };

    OnExport(Statesweep statesweep, Command command, String runId) {
      super(statesweep, command, runId);
    }

    @Override
    @SuppressWarnings("unchecked")
    public A lines(Consumer<LogLine> sink) {
      this.lines = requireNonNull(sink, "sink is null");
      return (A) this;
    }

    Consumer<LogLine> lines() {
      return lines;
    }

    @Override
    public A bucket(String bucket) {
      return option(Settings.BUCKET.flag(), bucket);
    }

    @Override
    public A prefix(String prefix) {
      return option(Settings.PREFIX.flag(), prefix);
    }
  }

  /** {@link Statesweep#plan()}. */
  public static final class Plan extends OnExport<PlanAction, PlanResult> implements PlanAction {
    Plan(Statesweep statesweep) {
      super(statesweep, Command.PLAN, null);
    }

    @Override
    public PlanResult execute() {
      Settings settings = settings();
      PlanOptions options = PlanOptions.from(settings, files(settings));
      if (!options.dryRun()) {
        Settings.Value value = settings.value(Settings.DRY_RUN);
        throw new BadSettingsException("The plan command never deletes, but dry_run is false (from "
            + value.source() + "): use run --execute to delete, or execute --run-id for a reviewed plan");
      }
      return new SparkPlanAction(session(settings), options).lines(lines()).execute();
    }
  }

  /** {@link Statesweep#run()}. */
  public static final class Run extends OnExport<RunAction, RunResult> implements RunAction {
    Run(Statesweep statesweep) {
      super(statesweep, Command.RUN, null);
    }

    @Override
    public RunResult execute() {
      Settings settings = settings();
      RunOptions options = RunOptions.from(settings, files(settings));
      return new SparkRunAction(session(settings), options).lines(lines()).execute();
    }
  }

  /** {@link Statesweep#execute(String)}. */
  public static final class Execute extends OnExport<ExecuteAction, ExecuteResult> implements ExecuteAction {
    Execute(Statesweep statesweep, String runId) {
      super(statesweep, Command.EXECUTE, runId);
    }

    @Override
    public String runId() {
      return planRunId();
    }

    @Override
    public ExecuteResult execute() {
      Settings settings = settings();
      Settings.Value dryRun = settings.value(Settings.DRY_RUN);
      if (!dryRun.source().equals("default") && settings.bool(Settings.DRY_RUN)) {
        throw new BadSettingsException("The execute command deletes, but dry_run is true (from "
            + dryRun.source() + "): unset it, or use plan for a dry run");
      }
      ExecuteOptions options = ExecuteOptions.from(settings, files(settings));
      String runId = planRunId();
      if (runId == null) {
        if (options.skipApproval()) {
          throw new BadSettingsException("execute --latest-approved executes approved plans only, but skip-approval"
              + " is true (from " + settings.value(Settings.SKIP_APPROVAL).source() + "): drop one of them");
        }
        return SparkExecuteAction.latestApproved(session(settings), options).lines(lines()).execute();
      }
      return new SparkExecuteAction(session(settings), options, runId).lines(lines()).execute();
    }
  }

  /** {@link Statesweep#approve(String)}. */
  public static final class Approve extends Configured<ApproveAction, Approval> implements ApproveAction {
    private String by;
    private String note;
    private String digest;

    Approve(Statesweep statesweep, String runId) {
      super(statesweep, Command.APPROVE, runId);
    }

    @Override
    public String runId() {
      return planRunId();
    }

    @Override
    public ApproveAction by(String approvedBy) {
      this.by = approvedBy;
      return this;
    }

    @Override
    public ApproveAction note(String text) {
      this.note = text;
      return this;
    }

    @Override
    public ApproveAction digest(String planDigest) {
      this.digest = planDigest == null || planDigest.isBlank() ? null : planDigest.trim();
      return this;
    }

    @Override
    public Approval preview() {
      Settings settings = settings();
      return new SparkApproveAction(session(settings), tables(settings)).preview(planRunId());
    }

    @Override
    public Approval execute() {
      Settings settings = settings();
      if (by == null || by.isBlank()) {
        throw new BadSettingsException("Missing --by: who approves the plan (a name or an email)");
      }
      return new SparkApproveAction(session(settings), tables(settings)).approve(planRunId(), by, note, digest);
    }
  }

  /** {@link Statesweep#restore(String)}: a dry run unless {@code dryRun(false)} or {@code --dry-run false}. */
  public static final class Restore extends OnExport<RestoreAction, RestoreResult> implements RestoreAction {
    private String record;

    Restore(Statesweep statesweep, String runId) {
      super(statesweep, Command.RESTORE, runId);
    }

    @Override
    public String runId() {
      return planRunId();
    }

    @Override
    public RestoreAction record(String stateFileKey) {
      this.record = stateFileKey == null || stateFileKey.isBlank() ? null : stateFileKey;
      return this;
    }

    @Override
    public RestoreAction dryRun(boolean dryRun) {
      return option(Settings.DRY_RUN.flag(), Boolean.toString(dryRun));
    }

    @Override
    public RestoreResult execute() {
      Settings settings = settings();
      RestoreOptions options = RestoreOptions.from(settings, files(settings));
      return new SparkRestoreAction(session(settings), options, planRunId(), record).lines(lines()).execute();
    }
  }
}
