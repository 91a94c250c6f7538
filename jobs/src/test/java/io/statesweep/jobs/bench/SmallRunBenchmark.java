package io.statesweep.jobs.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statesweep.local.LocalS3Server;
import io.statesweep.local.SampleArchive;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Small runs of the shipped jar beside the reference approach, on this machine, each run a JVM of its own
 * with its start included, against a local S3Proxy server ({@link LocalS3Server}, in memory). statesweep runs
 * as README's {@code java -cp} launch runs it: {@code java -Xmx2g <spark.java17.flags>
 * -Dlog4j2.configurationFile=conf/log4j2.properties -cp jobs/target/statesweep.jar:<jobs/target/provided-classpath.txt>
 * io.statesweep.jobs.StatesweepCli plan --bucket B --prefix P --endpoint E --region R --warehouse W}, credentials
 * in {@code AWS_ACCESS_KEY_ID} / {@code AWS_SECRET_ACCESS_KEY}; the reference is {@link ReferenceCleanup} with
 * the test classpath ({@code -Xmx2g}, no Spark).
 *
 * <p>Archives: "small", {@value #SMALL_RECORDS} folder records of {@value #SMALL_FILES} files and a state file
 * each (8 due: 4 marked {@code delete: true}, 4 past their {@code expires_at}; 16 live; 8 live with two
 * existing {@code delete_files}) and 3 files of the exporter's {@code _cogram/} folder, 2,579 keys, of which a
 * plan deletes 656; and "demo", {@code SampleArchive.generate(store, prefix, 2000, SampleArchive.DEFAULT_SEED,
 * now)}, what the demo writes. Measured per archive, each repetition in turn: {@code plan} into a fresh
 * warehouse; {@code plan} again into that warehouse (a daily job's steady state); the reference's walk, reads
 * and decisions; for "small" also {@code run --execute} (a fresh warehouse, a fresh copy of the archive) beside
 * the reference deleting what it decided (on a copy of its own). The plans and the reference's reads of an
 * archive share one copy of it, written once; every run that deletes gets a copy under a prefix of its own.
 *
 * <p>Launches: each jar measurement runs under each of {@link #LAUNCHES}: "default", README's {@code java -cp} launch
 * as above; "short-run", with README's short-run flags added ({@code statesweep.short-run.flags} of {@code pom.xml}:
 * the client compiler only, the serial collector); "short-run+class-data", with those and a class-data archive
 * ({@code -XX:SharedArchiveFile}) that one earlier run of the jar wrote at its exit ({@code -XX:ArchiveClassesAtExit}),
 * a {@code run --execute} of a copy of the small archive made before the measurements and not counted.
 *
 * <p>Prints, for every jar run: wall seconds (process start to exit), exit code, the phase seconds of its
 * {@code metrics:} line ({@code run --execute} prints one, its execute's), Spark jobs by job group
 * ({@code spark.jobGroup.id}, one a phase, such as {@code statesweep-plan-list}) with the seconds from a group's
 * first job submitted to its last completed, stages and tasks, all counted in Spark's event log
 * ({@code -Dspark.eventLog.enabled=true}, so the runs also write it), and the Delta commits (new
 * {@code _delta_log/NNN.json} files) the run added to each table of the warehouse; for every reference run its
 * line. Then min / median / max of wall seconds per measurement and a table of medians side by side, the
 * other columns from the last launch's run of median wall time. Figures only: it asserts nothing.
 *
 * <p>Run: {@code mvn -B -q -Pscale -DskipTests verify -pl jobs -am -Dscale.args="small [repetitions (3)]
 * [archives (small,demo)] [launches (default,short-run,short-run+class-data)]"}; {@code package} builds the jar
 * before {@code verify} runs this. Warehouses, event logs and each run's output stay in
 * {@code jobs/target/small-run/run-*}.
 */
final class SmallRunBenchmark {
  static final String BUCKET = "small-runs";
  static final int SMALL_RECORDS = 32;
  static final int SMALL_FILES = 79;
  private static final int DEMO_RECORDS = 2_000;
  private static final int WRITER_THREADS = 16;
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(30);
  private static final Pattern COMMIT = Pattern.compile("\\d{20}\\.json");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The launches measured, in this order: each a set of JVM flags added to README's {@code java -cp} launch. */
  static final List<String> LAUNCHES = List.of("default", "short-run", "short-run+class-data");

  private final LocalS3Server server;
  private final ObjectStore store;
  private final Path work;
  /** {@code java} and the jar's JVM flags. */
  private final List<String> jarJvm;
  /** The jar's class path and main class. */
  private final List<String> jarMain;
  private final List<String> referenceCommand;
  /** README's short-run flags ({@code statesweep.short-run.flags} of {@code pom.xml}). */
  private final List<String> shortRunFlags;

  private SmallRunBenchmark(LocalS3Server server, Path work, List<String> jarJvm, List<String> jarMain,
      List<String> referenceCommand, List<String> shortRunFlags) {
    this.server = server;
    this.store = S3ObjectStore.open(server.s3Settings(), BUCKET);
    this.work = work;
    this.jarJvm = jarJvm;
    this.jarMain = jarMain;
    this.referenceCommand = referenceCommand;
    this.shortRunFlags = shortRunFlags;
  }

  static void main(String[] args) throws Exception {
    int repetitions = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    List<String> archives = List.of((args.length > 1 ? args[1] : "small,demo").split(","));
    List<String> launches = List.of((args.length > 2 ? args[2] : String.join(",", LAUNCHES)).split(","));
    if (repetitions < 1 || archives.stream().anyMatch(name -> !name.equals("small") && !name.equals("demo"))
        || launches.stream().anyMatch(launch -> !LAUNCHES.contains(launch))) {
      System.err.println("usage: small [repetitions] [small,demo] [" + String.join(",", LAUNCHES) + "]");
      System.exit(2);
    }
    String flags = System.getProperty("spark.java17.flags");
    String shortRun = System.getProperty("statesweep.short-run.flags");
    if (flags == null || flags.isBlank() || shortRun == null || shortRun.isBlank()) {
      throw new IllegalStateException("set the system properties spark.java17.flags and statesweep.short-run.flags"
          + " (the scale profile passes them)");
    }
    Path jar = Path.of(System.getProperty("statesweep.jar", "jobs/target/statesweep.jar")).toAbsolutePath();
    String platform = Files.readString(Path.of(System.getProperty("statesweep.provided.classpath",
        "jobs/target/provided-classpath.txt"))).strip();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> jarJvm = new ArrayList<>(List.of(java, "-Xmx2g"));
    jarJvm.addAll(Arrays.asList(flags.trim().split("\\s+")));
    jarJvm.add("-Dlog4j2.configurationFile=" + Path.of("conf", "log4j2.properties").toAbsolutePath());
    List<String> jarMain = List.of("-cp", jar + File.pathSeparator + platform, "io.statesweep.jobs.StatesweepCli");
    List<String> referenceCommand = List.of(java, "-Xmx2g", "-cp", System.getProperty("java.class.path"),
        ReferenceCleanup.class.getName());
    Path runs = Files.createDirectories(Path.of("jobs", "target", "small-run").toAbsolutePath());
    Path work = Files.createTempDirectory(runs, "run-");

    System.out.printf("small runs: the shipped jar %s (java -cp, -Xmx2g; launches %s) beside %s, %d repetitions of"
        + " %s; a local S3Proxy server; %d cores; work directory %s%n", jar, String.join(", ", launches),
        ReferenceCleanup.class.getSimpleName(), repetitions, String.join(", ", archives),
        Runtime.getRuntime().availableProcessors(), work);
    try (LocalS3Server server = LocalS3Server.builder().maxHeap("1g").start()) {
      server.setCredentialSystemProperties();
      server.createBucket(BUCKET);
      List<String> shortRunFlags = Arrays.asList(shortRun.trim().split("\\s+"));
      new SmallRunBenchmark(server, work, jarJvm, jarMain, referenceCommand, shortRunFlags)
          .measure(archives, repetitions, launches);
    }
  }

  /** A measured archive: its name, what it holds, and the prefix that the plans and the reference's read share. */
  private record Archive(String name, int records, int keys, String prefix) {}

  /** One line of the table: a jar measurement under each launch, and the reference's beside it. */
  private record Row(String name, Archive archive, Map<String, List<JarRun>> statesweep, List<ReferenceRun> reference) {
    Row(String name, Archive archive, List<ReferenceRun> reference) {
      this(name, archive, new LinkedHashMap<>(), reference);
    }

    List<JarRun> under(String launch) {
      return statesweep.computeIfAbsent(launch, name -> new ArrayList<>());
    }
  }

  /** The rows of one archive: its plan, its plan again beside the same reference runs, and its run (or null). */
  private record Measured(Archive archive, Row plan, Row again, Row run) {}

  /**
   * The JVM flags each launch adds: none; README's short-run flags; those and a class-data archive that one earlier
   * run of the jar wrote at its exit ({@code -XX:ArchiveClassesAtExit}), made here by a {@code run --execute} of a
   * copy of the small archive that is not measured.
   */
  private Map<String, List<String>> launchFlags(List<String> launches) throws Exception {
    Map<String, List<String>> flags = new LinkedHashMap<>();
    for (String launch : launches) {
      List<String> added = new ArrayList<>();
      if (!launch.equals("default")) {
        added.addAll(shortRunFlags);
      }
      if (launch.equals("short-run+class-data")) {
        Path archive = work.resolve("statesweep.jsa");
        List<String> dump = new ArrayList<>(shortRunFlags);
        dump.add("-XX:ArchiveClassesAtExit=" + archive);
        Path warehouse = Files.createDirectories(work.resolve("class-data")).resolve("warehouse");
        JarRun made = jar("class-data archive (not measured)", dump, List.of("run", "--execute"),
            write("small", "small-class-data/").prefix(), warehouse);
        if (made.exit() != 0 || !Files.isRegularFile(archive)) {
          throw new IllegalStateException("no class-data archive at " + archive + ": see the run's output above");
        }
        System.out.printf("class-data archive %s: %,d bytes%n", archive, Files.size(archive));
        added.add("-XX:SharedArchiveFile=" + archive);
      }
      flags.put(launch, added);
    }
    return flags;
  }

  private void measure(List<String> archiveNames, int repetitions, List<String> launches) throws Exception {
    Map<String, List<String>> flags = launchFlags(launches);
    List<Measured> measured = new ArrayList<>();
    for (String name : archiveNames) {
      Archive archive = write(name, name + "/");
      Row plan = new Row(name + ": plan", archive, new ArrayList<>());
      Row again = new Row(name + ": plan again (same warehouse)", archive, plan.reference());
      Row run = name.equals("small") ? new Row(name + ": run --execute", archive, new ArrayList<>()) : null;
      measured.add(new Measured(archive, plan, again, run));
    }
    for (int repetition = 1; repetition <= repetitions; repetition++) {
      for (Measured rows : measured) {
        Archive archive = rows.archive();
        String name = archive.name();
        for (Map.Entry<String, List<String>> launch : flags.entrySet()) {
          String as = " (" + launch.getKey() + ") #" + repetition;
          Path warehouse = Files.createDirectories(work.resolve(name + "-plan-" + launch.getKey() + "-" + repetition))
              .resolve("warehouse");
          rows.plan().under(launch.getKey()).add(jar(rows.plan().name() + as, launch.getValue(), List.of("plan"),
              archive.prefix(), warehouse));
          rows.again().under(launch.getKey()).add(jar(rows.again().name() + as, launch.getValue(), List.of("plan"),
              archive.prefix(), warehouse));
          if (rows.run() != null) {
            String jarPrefix = write(name, name + "-run-" + launch.getKey() + "-" + repetition + "/").prefix();
            Path runWarehouse = Files.createDirectories(work.resolve(name + "-run-" + launch.getKey() + "-"
                + repetition)).resolve("warehouse");
            rows.run().under(launch.getKey()).add(jar(rows.run().name() + as, launch.getValue(),
                List.of("run", "--execute"), jarPrefix, runWarehouse));
          }
        }
        rows.plan().reference().add(reference(name + ": reference plan #" + repetition, archive.prefix(), false));
        if (rows.run() != null) {
          String referencePrefix = write(name, name + "-reference-run-" + repetition + "/").prefix();
          rows.run().reference().add(reference(name + ": reference run --execute #" + repetition, referencePrefix,
              true));
        }
      }
    }
    List<Row> table = new ArrayList<>();
    for (Measured rows : measured) {
      table.addAll(rows.run() == null ? List.of(rows.plan(), rows.again())
          : List.of(rows.plan(), rows.again(), rows.run()));
    }
    print(table, repetitions, List.copyOf(flags.keySet()));
  }

  /** Writes a copy of the archive {@code name} under {@code prefix}. */
  private Archive write(String name, String prefix) throws Exception {
    long started = System.nanoTime();
    Archive archive;
    if (name.equals("demo")) {
      SampleArchive.Manifest manifest = SampleArchive.generate(store, prefix, DEMO_RECORDS, SampleArchive.DEFAULT_SEED,
          Instant.now());
      archive = new Archive(name, manifest.recordCount(), manifest.objectCount(), prefix);
    } else {
      archive = writeSmall(prefix, Instant.now());
    }
    System.out.printf("archive %s: %d records, %d keys under s3://%s/%s, written in %.1f s%n", name, archive.records(),
        archive.keys(), BUCKET, prefix, (System.nanoTime() - started) / 1e9);
    return archive;
  }

  /**
   * The small archive under {@code prefix}: record {@code i} at
   * {@code projects/project-<i / 16 + 1>/<documents|drawings>/record-<i>/state.json}, due when {@code i % 4 == 0}
   * (marked 30 days before {@code now} when {@code i % 8 == 0}, else 30 days past its {@code expires_at}), live
   * with two removed files ({@code removed-1.pdf}, {@code removed-2.pdf}, in {@code delete_files}) when
   * {@code i % 4 == 3}, live otherwise (with an {@code expires_at} a year ahead when {@code i % 4 == 2}). Every
   * file is written before any state file, so none is newer than its state file.
   */
  private Archive writeSmall(String prefix, Instant now) throws Exception {
    Map<String, byte[]> files = new LinkedHashMap<>();
    Map<String, byte[]> stateFiles = new LinkedHashMap<>();
    for (String name : List.of("export.json", "manifest.json", "settings.json")) {
      files.put(prefix + "_cogram/" + name, ("{\"exporter\":\"cogram\",\"file\":\"" + name + "\"}").getBytes(UTF_8));
    }
    for (int record = 0; record < SMALL_RECORDS; record++) {
      String folder = String.format("%sprojects/project-%d/%s/record-%02d/", prefix, record / 16 + 1,
          record % 2 == 0 ? "documents" : "drawings", record);
      ObjectNode document = JSON.createObjectNode();
      boolean due = record % 4 == 0;
      boolean marked = due && record % 8 == 0;
      document.put("status", marked ? "deleted" : "active");
      document.put("delete", marked);
      if (marked) {
        document.put("deleted_at", now.minus(Duration.ofDays(30)).toString());
      }
      document.put("expires_at", due && !marked ? now.minus(Duration.ofDays(30)).toString()
          : record % 4 == 2 ? now.plus(Duration.ofDays(365)).toString() : null);
      ArrayNode listed = document.putArray("files");
      for (int file = 1; file <= SMALL_FILES; file++) {
        String key = String.format("%sfile-%02d.pdf", folder, file);
        files.put(key, ("file " + file + " of " + folder + "\n").getBytes(UTF_8));
        listed.add(key);
      }
      ArrayNode removed = document.putArray("delete_files");
      if (record % 4 == 3) {
        for (String name : List.of("removed-1.pdf", "removed-2.pdf")) {
          files.put(folder + name, ("removed file of " + folder + "\n").getBytes(UTF_8));
          removed.add(folder + name);
        }
      }
      stateFiles.put(folder + "state.json", JSON.writeValueAsBytes(document));
    }
    put(files);
    put(stateFiles);
    return new Archive("small", stateFiles.size(), files.size() + stateFiles.size(), prefix);
  }

  private void put(Map<String, byte[]> objects) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(WRITER_THREADS);
    try {
      List<Future<String>> writes = new ArrayList<>();
      objects.forEach((key, content) -> writes.add(pool.submit(() -> store.write(key, content))));
      for (Future<String> write : writes) {
        write.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** A jar run: how long it took and how it ended, what it printed, what Spark ran and what Delta committed. */
  private record JarRun(double wallSeconds, int exit, Map<String, String> summary, List<JsonNode> metrics,
      Map<String, JobGroup> jobGroups, int stages, int tasks, Map<String, Integer> commitsByTable) {
    int jobs() {
      return jobGroups.values().stream().mapToInt(JobGroup::jobs).sum();
    }

    /** {@code group jobs (s), ...} in the order the groups' first jobs started. */
    String groups() {
      return jobGroups.entrySet().stream().sorted(Comparator.comparingLong(group -> group.getValue().firstSubmitted()))
          .map(group -> String.format("%s %d (%.1f s)", group.getKey(), group.getValue().jobs(),
              group.getValue().seconds()))
          .collect(Collectors.joining(", "));
    }

    int commits() {
      return commitsByTable.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** {@code command: phase s, ...} for each metrics line. */
    String phases() {
      List<String> lines = new ArrayList<>();
      for (JsonNode metric : metrics) {
        List<String> phases = new ArrayList<>();
        metric.path("seconds").fields().forEachRemaining(phase -> phases.add(String.format("%s %.1f", phase.getKey(),
            phase.getValue().asDouble())));
        lines.add(metric.path("command").asText("?") + ": " + String.join(", ", phases));
      }
      return lines.isEmpty() ? "no metrics line" : String.join("; ", lines);
    }
  }

  /** A reference run: how long it took, how it ended, and its line's pairs. */
  private record ReferenceRun(double wallSeconds, int exit, Map<String, String> pairs) {}

  /**
   * Runs the shipped jar's {@code command} on {@code prefix} into {@code warehouse}, in a JVM of its own with the
   * launch's {@code flags} added.
   */
  private JarRun jar(String name, List<String> flags, List<String> command, String prefix, Path warehouse)
      throws Exception {
    Path directory = Files.createDirectories(warehouse.getParent());
    Path eventLog = Files.createDirectories(directory.resolve(fileName(name) + "-event-log"));
    List<String> commandLine = new ArrayList<>(jarJvm);
    commandLine.addAll(flags);
    commandLine.addAll(List.of("-Dspark.eventLog.enabled=true", "-Dspark.eventLog.dir=" + eventLog.toUri()));
    commandLine.addAll(jarMain);
    commandLine.addAll(command);
    commandLine.addAll(List.of("--bucket", BUCKET, "--prefix", prefix, "--endpoint", server.endpoint(), "--region",
        LocalS3Server.REGION, "--warehouse", warehouse.toString()));
    Set<Path> commitsBefore = commits(warehouse);
    Ended ended = launch(commandLine, directory, fileName(name) + ".out");
    Map<String, String> summary = new LinkedHashMap<>();
    List<JsonNode> metrics = new ArrayList<>();
    for (String line : ended.lines()) {
      if (line.startsWith("summary: ")) {
        summary = pairs(line.substring("summary: ".length()));
      } else if (line.startsWith("metrics: ")) {
        metrics.add(JSON.readTree(line.substring("metrics: ".length())));
      }
    }
    Map<String, Integer> commitsByTable = new TreeMap<>();
    for (Path commit : commits(warehouse)) {
      if (!commitsBefore.contains(commit)) {
        commitsByTable.merge(warehouse.relativize(commit.getParent().getParent()).toString(), 1, Integer::sum);
      }
    }
    JarRun run = sparkEvents(eventLog, ended, summary, metrics, commitsByTable);
    long wouldDelete = Long.parseLong(summary.getOrDefault("records_deleted", "0"))
        + Long.parseLong(summary.getOrDefault("child_keys_deleted", "0"));
    System.out.printf("%s: wall %.1f s, exit %d; %s state files, %s %d keys, %s errors; phases (s) %s; Spark %d jobs,"
        + " %d stages, %d tasks; Delta commits %d%n", name, run.wallSeconds(), run.exit(),
        summary.getOrDefault("state_files_scanned", "?"), "false".equals(summary.get("dry_run")) ? "deleted"
        : "would delete", wouldDelete, summary.getOrDefault("errors", "?"), run.phases(), run.jobs(), run.stages(),
        run.tasks(), run.commits());
    System.out.println("  Spark jobs by job group (first job submitted to last completed): " + run.groups());
    System.out.println("  commits by table: " + run.commitsByTable());
    if (run.exit() != 0) {
      System.out.println("  last lines of its output (" + ended.output() + "):");
      ended.lines().subList(Math.max(0, ended.lines().size() - 20), ended.lines().size())
          .forEach(line -> System.out.println("  | " + line));
    }
    return run;
  }

  /**
   * The Spark jobs of one job group: how many, and the milliseconds (epoch) at which the first was submitted and
   * the last completed.
   */
  private record JobGroup(int jobs, long firstSubmitted, long lastCompleted) {
    double seconds() {
      return (lastCompleted - firstSubmitted) / 1e3;
    }
  }

  /** Spark jobs by job group, stages and tasks that the event log in {@code eventLog} records. */
  private static JarRun sparkEvents(Path eventLog, Ended ended, Map<String, String> summary, List<JsonNode> metrics,
      Map<String, Integer> commitsByTable) throws IOException {
    Map<String, JobGroup> jobGroups = new TreeMap<>();
    Map<Integer, String> groupOfJob = new HashMap<>();
    int stages = 0;
    int tasks = 0;
    try (Stream<Path> logs = Files.list(eventLog)) {
      for (Path log : logs.sorted().toList()) {
        for (String line : Files.readAllLines(log, UTF_8)) {
          JsonNode event;
          try {
            event = JSON.readTree(line);
          } catch (JsonProcessingException e) {
            continue; // the last line of a log whose JVM did not stop Spark
          }
          switch (event.path("Event").asText()) {
            case "SparkListenerJobStart" -> {
              String group = event.path("Properties").path("spark.jobGroup.id").asText("(no group)");
              long submitted = event.path("Submission Time").asLong();
              groupOfJob.put(event.path("Job ID").asInt(), group);
              jobGroups.merge(group, new JobGroup(1, submitted, submitted), (a, b) -> new JobGroup(a.jobs() + 1,
                  Math.min(a.firstSubmitted(), b.firstSubmitted()), a.lastCompleted()));
            }
            case "SparkListenerJobEnd" -> {
              String group = groupOfJob.get(event.path("Job ID").asInt());
              long completed = event.path("Completion Time").asLong();
              if (group != null) {
                jobGroups.computeIfPresent(group, (name, a) -> new JobGroup(a.jobs(), a.firstSubmitted(),
                    Math.max(a.lastCompleted(), completed)));
              }
            }
            case "SparkListenerStageCompleted" -> stages++;
            case "SparkListenerTaskEnd" -> tasks++;
            default -> { }
          }
        }
      }
    }
    return new JarRun(ended.wallSeconds(), ended.exit(), summary, metrics, jobGroups, stages, tasks, commitsByTable);
  }

  /** Every Delta commit file ({@code _delta_log/NNN.json}) under {@code warehouse}. */
  private static Set<Path> commits(Path warehouse) throws IOException {
    if (!Files.isDirectory(warehouse)) {
      return Set.of();
    }
    try (Stream<Path> paths = Files.walk(warehouse)) {
      return paths.filter(path -> path.getParent() != null && path.getParent().getFileName().toString()
          .equals("_delta_log") && COMMIT.matcher(path.getFileName().toString()).matches())
          .collect(Collectors.toCollection(HashSet::new));
    }
  }

  /** Runs {@link ReferenceCleanup} on {@code prefix} in a JVM of its own. */
  private ReferenceRun reference(String name, String prefix, boolean execute) throws Exception {
    List<String> commandLine = new ArrayList<>(referenceCommand);
    commandLine.addAll(List.of("--bucket", BUCKET, "--prefix", prefix, "--endpoint", server.endpoint(), "--region",
        LocalS3Server.REGION));
    if (execute) {
      commandLine.add("--execute");
    }
    Path directory = Files.createDirectories(work.resolve("reference"));
    Ended ended = launch(commandLine, directory, fileName(name) + ".out");
    Map<String, String> pairs = ended.lines().stream().filter(line -> line.startsWith("reference: ")).findFirst()
        .map(line -> pairs(line.substring("reference: ".length()))).orElse(Map.of());
    System.out.printf("%s: wall %.1f s, exit %d; %s%n", name, ended.wallSeconds(), ended.exit(),
        pairs.isEmpty() ? "no reference line, see " + ended.output() : pairs.entrySet().stream()
            .map(pair -> pair.getKey() + "=" + pair.getValue()).collect(Collectors.joining(" ")));
    return new ReferenceRun(ended.wallSeconds(), ended.exit(), pairs);
  }

  /** How a process ended: its wall seconds from start to exit, exit code, and its output (stdout and stderr). */
  private record Ended(double wallSeconds, int exit, Path output, List<String> lines) {}

  /**
   * Runs {@code command} in {@code directory} with the server's credentials in the environment and none of the
   * user's settings, its output to a file there; waits at most {@link #RUN_TIMEOUT}.
   */
  private Ended launch(List<String> command, Path directory, String outputName) throws Exception {
    Path output = directory.resolve(outputName);
    ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
        .redirectOutput(output.toFile());
    builder.environment().keySet().removeIf(variable -> variable.startsWith("AWS_")
        || variable.startsWith("COGRAM_CLEANUP_") || variable.startsWith("STATESWEEP_"));
    builder.environment().putAll(Map.of("AWS_ACCESS_KEY_ID", server.accessKey(), "AWS_SECRET_ACCESS_KEY",
        server.secretKey(), "SPARK_LOCAL_IP", "127.0.0.1"));
    long started = System.nanoTime();
    Process process = builder.start();
    Thread stop = new Thread(process::destroyForcibly, "small-run-stop");
    Runtime.getRuntime().addShutdownHook(stop);
    try {
      if (!process.waitFor(RUN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        System.out.println("stopping a run still going after " + RUN_TIMEOUT.toMinutes() + " minutes: " + output);
        process.destroyForcibly().waitFor();
      }
    } finally {
      Runtime.getRuntime().removeShutdownHook(stop);
    }
    double wall = (System.nanoTime() - started) / 1e9;
    return new Ended(wall, process.exitValue(), output, Files.readAllLines(output, UTF_8));
  }

  /** A run's name as a file name: {@code small: plan #1} is {@code small-plan-1}. */
  private static String fileName(String name) {
    return name.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("-$", "");
  }

  /** {@code a=1 b=2} to a map. */
  private static Map<String, String> pairs(String line) {
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String pair : line.split(" ")) {
      int equals = pair.indexOf('=');
      if (equals > 0) {
        pairs.put(pair.substring(0, equals), pair.substring(equals + 1));
      }
    }
    return pairs;
  }

  private static void print(List<Row> rows, int repetitions, List<String> launches) {
    System.out.println();
    System.out.printf("wall seconds, min / median / max of %d:%n", repetitions);
    for (Row row : rows) {
      for (String launch : launches) {
        System.out.printf("  %-36s %-22s statesweep %s   reference %s%n", row.name(), launch,
            spread(row.under(launch).stream().map(JarRun::wallSeconds).toList()),
            spread(row.reference().stream().map(ReferenceRun::wallSeconds).toList()));
      }
    }
    System.out.println();
    String last = launches.get(launches.size() - 1);
    StringBuilder header = new StringBuilder("| run | records | keys |");
    StringBuilder rule = new StringBuilder("| --- | --- | --- |");
    for (String launch : launches) {
      header.append(" statesweep s, ").append(launch).append(" |");
      rule.append(" --- |");
    }
    header.append(" reference s | ratios | Spark jobs | stages | tasks | Delta commits | phase seconds (").append(last)
        .append(") |");
    rule.append(" --- | --- | --- | --- | --- | --- | --- |");
    System.out.println(header);
    System.out.println(rule);
    for (Row row : rows) {
      double reference = median(row.reference().stream().map(ReferenceRun::wallSeconds).toList());
      StringBuilder line = new StringBuilder(String.format("| %s | %,d | %,d |", row.name(), row.archive().records(),
          row.archive().keys()));
      List<String> ratios = new ArrayList<>();
      for (String launch : launches) {
        double statesweep = median(row.under(launch).stream().map(JarRun::wallSeconds).toList());
        line.append(String.format(" %.1f |", statesweep));
        ratios.add(String.format("%.1f", statesweep / reference));
      }
      double statesweep = median(row.under(last).stream().map(JarRun::wallSeconds).toList());
      JarRun typical = row.under(last).stream()
          .min(Comparator.comparingDouble(run -> Math.abs(run.wallSeconds() - statesweep))).orElseThrow();
      line.append(String.format(" %.1f | %s | %d | %d | %d | %d | %s |", reference, String.join(" / ", ratios),
          typical.jobs(), typical.stages(), typical.tasks(), typical.commits(), typical.phases()));
      System.out.println(line);
    }
    System.out.println("statesweep s: the jar's JVM from start to exit under each launch (default: README's java -cp"
        + " launch; short-run: with its short-run flags; short-run+class-data: also with a class-data archive that an"
        + " earlier run wrote); reference s: ReferenceCleanup's JVM from start to exit (beside \"plan again\", its"
        + " plan's: it keeps nothing from run to run); ratios: statesweep / reference, one per launch; Spark jobs,"
        + " stages (completed), tasks (ended), Delta commits (new _delta_log/NNN.json in the warehouse) and phase"
        + " seconds (the metrics lines' \"seconds\") of the last launch's run of median wall time.");
  }

  private static String spread(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    return String.format("%.1f / %.1f / %.1f", sorted.get(0), median(sorted), sorted.get(sorted.size() - 1));
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }
}
