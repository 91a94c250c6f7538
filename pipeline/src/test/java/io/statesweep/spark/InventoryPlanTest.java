package io.statesweep.spark;

import static io.statesweep.testing.DatasetAssertions.assertSameRows;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.exists;
import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --listing inventory}: an S3 Inventory report of the bucket, in each of its formats, written
 * to the test server as S3 writes it (data files plus manifest.json), plans exactly what LIST plans;
 * the run row records the inventory date; execution still verifies against the live bucket.
 */
@ExtendWith(S3ServerExtension.class)
class InventoryPlanTest {
  private static final java.util.concurrent.atomic.AtomicInteger BUCKETS = new java.util.concurrent.atomic.AtomicInteger();
  private static final String P = "cogram/";
  private static final String INVENTORY_BUCKET = "inventory-reports";
  private static final Instant TAKEN_AT = Instant.parse("2026-11-28T01:00:00Z");
  private static final String ODD_NAME = "projects/p1/meetings/m1/my file+1 é中.pdf";

  /** A bucket per test: execution changes it. */
  private final String bucket = "inventoried-" + BUCKETS.incrementAndGet();
  private LocalS3Server server;
  private TestArchive archive;
  @TempDir
  Path warehouse;

  @BeforeEach
  void seed(LocalS3Server server) {
    this.server = server;
    archive = new TestArchive(server, bucket, P);
    server.createBucket(INVENTORY_BUCKET);
    // A deleted meeting whose file names need CSV decoding, a live project with a removed file,
    // an expired document, a live document, and keys outside the prefix that must be ignored.
    String m1 = "projects/p1/meetings/m1/";
    archive.put(m1 + "meeting.json", "{}");
    archive.put(ODD_NAME, "odd");
    archive.put(m1 + "state.json", archive.state(true, null, List.of(m1 + "meeting.json", ODD_NAME), List.of()));
    archive.put("projects/p1/project.json", "{}");
    archive.put("projects/p1/old.json", "old");
    archive.put("projects/p1/state.json", archive.state(false, null, List.of("projects/p1/project.json"),
        List.of("projects/p1/old.json")));
    for (String d : List.of("d1", "d2")) {
      String folder = "projects/p1/documents/" + d + "/";
      archive.put(folder + "doc.pdf", "pdf");
      archive.put(folder + "state.json", archive.state(false, d.equals("d1") ? "2020-01-01T00:00:00Z" : null,
          List.of(folder + "doc.pdf"), List.of()));
    }
    archive.store().write("elsewhere/projects/p9/state.json",
        "{\"delete\": true, \"files\": []}".getBytes(StandardCharsets.UTF_8));
    SharedSpark.s3a(SharedSpark.session(), server.endpoint(), server.accessKey(), server.secretKey());
  }

  @Test
  void eachFormatPlansExactlyWhatTheListingPlans() {
    PlanResult listed = plan(Map.of());
    assertThat(listed.failure()).isNull();
    Dataset<Row> expected = planRows(listed);
    assertThat(expected.count()).isEqualTo(4);
    assertThat(expected.filter(exists(col("deletes"), delete -> delete.getField("key").equalTo(P + ODD_NAME))).count())
        .isEqualTo(1);

    for (String format : List.of("CSV", "ORC", "Parquet")) {
      String manifest = writeInventory(format, "daily-" + format.toLowerCase(), archive.snapshot().values());
      PlanResult inventoried = plan(Map.of("--listing", "inventory", "--inventory", manifest));

      assertThat(inventoried.failure()).as(format).isNull();
      assertSameRows(format, expected, planRows(inventoried));
      // The same plan, but its own requests: a report costs no LIST (pipeline/README.md, "The cost of a run").
      String ownRequests = " requests=\\d+ cost_usd=[0-9.]+ ";
      assertThat(inventoried.summary().line().replace(inventoried.runId(), "RUN").replaceFirst(ownRequests, " "))
          .as(format).isEqualTo(listed.summary().line().replace(listed.runId(), "RUN").replaceFirst(ownRequests, " "));
      Row requests = TableReader.of(inventoried.tables()).runs(inventoried.runId()).select("s3_requests").first();
      assertThat(requests.<String, Long>getJavaMap(0)).as(format).containsKey("GetObject")
          .doesNotContainKey("ListObjectsV2");
      Row run = runRow(inventoried);
      assertThat(run.getString(0)).isEqualTo("inventory");
      assertThat(run.getString(1)).isEqualTo(manifest);
      assertThat(run.getTimestamp(2).toInstant()).isEqualTo(TAKEN_AT);
    }
    Row listRun = runRow(listed);
    assertThat(listRun.getString(0)).isEqualTo("list");
    assertThat(listRun.isNullAt(1)).isTrue();
    assertThat(listRun.isNullAt(2)).isTrue();
  }

  @Test
  void aReportGivenAsS3OrCopiedToALocalFileIsReadThroughHadoopAndItsDataFilesFromS3(@TempDir Path copies)
      throws java.io.IOException {
    Dataset<Row> expected = planRows(plan(Map.of()));
    String manifest = writeInventory("CSV", "daily-anywhere", archive.snapshot().values());
    String key = manifest.substring(("s3a://" + INVENTORY_BUCKET + "/").length());
    Path copy = java.nio.file.Files.write(copies.resolve("manifest.json"),
        archiveOf(INVENTORY_BUCKET).read(key, 1 << 20).bytes());
    // s3:// is S3A here, as on any cluster without EMRFS; a manifest copied to DBFS, a volume or a local
    // disk still names its data files in the destination bucket.
    for (String location : List.of("s3://" + INVENTORY_BUCKET + "/" + key, "file:" + copy, copy.toString())) {
      PlanResult inventoried = plan(Map.of("--listing", "inventory", "--inventory", location));

      assertThat(inventoried.failure()).as(location).isNull();
      assertSameRows(location, expected, planRows(inventoried));
      assertThat(runRow(inventoried).getString(1)).isEqualTo(location);
    }
  }

  @Test
  void aVersionedReportPlansOnlyTheLatestVersionsThatAreNotDeleteMarkers() {
    List<StoredObject> objects = new ArrayList<>(archive.snapshot().values());
    PlanResult listed = plan(Map.of());
    // Older versions and a delete marker of a state file that no longer exists: a plan that took them
    // for live keys would read a state file that is not there, or plan a record twice.
    Instant old = Instant.parse("2025-01-01T00:00:00Z");
    List<Row> extra = List.of(
        csvRow(new StoredObject(P + "projects/p1/documents/d3/state.json", "0123", old, 10), "v1", false, false),
        csvRow(new StoredObject(P + "projects/p1/documents/d3/state.json", "", old, 0), "v2", true, true),
        csvRow(new StoredObject(P + "projects/p1/project.json", "4567", old, 3), "v0", false, false));
    String manifest = writeCsv("versioned", objects, extra);

    PlanResult inventoried = plan(Map.of("--listing", "inventory", "--inventory", manifest));

    assertThat(inventoried.failure()).isNull();
    assertSameRows("the versioned report", planRows(listed), planRows(inventoried));
  }

  /**
   * pipeline/README.md, "The cost of a run": on a versioned bucket the plan's versioning line counts the noncurrent
   * versions already under the prefix when its listing sees them (a report of all versions), into runs'
   * noncurrent_versions and noncurrent_bytes, and says that ListObjectsV2 or a report of current versions does not. A
   * runs table from before those columns takes the rows.
   */
  @Test
  void aReportOfAllVersionsCountsTheNoncurrentVersionsUnderThePrefixAndAListingSaysItCannot() {
    server.enableVersioning(bucket);
    PlanResult listed = plan(Map.of());
    assertThat(listed.failure()).isNull();
    String notListed = "The noncurrent versions already under " + P + " are not counted: ListObjectsV2 lists current"
        + " versions only; an S3 Inventory report of all versions (IncludedObjectVersions All, read with --listing"
        + " inventory) counts them, as does ListObjectVersions of the prefix. ";
    assertThat(versioningNote(listed)).contains(" only when noncurrent versions expire. " + notListed
        + "Add a lifecycle rule");
    assertThat(listed.logLines()).anySatisfy(line -> assertThat(line).contains(notListed));
    assertThat(noncurrent(listed)).containsExactly(null, null);
    // A runs table written before the columns existed.
    SparkSession spark = SharedSpark.session();
    TableReader.of(spark, listed.tables()).runs().drop("noncurrent_versions", "noncurrent_bytes").write()
        .format("delta").mode("overwrite").option("overwriteSchema", "true").partitionBy("run_date")
        .save(listed.tables().runs());
    Instant old = Instant.parse("2025-01-01T00:00:00Z");
    // Two noncurrent versions under the prefix (3 + 10 bytes); a delete marker and a version outside it do not count.
    List<Row> extra = List.of(
        csvRow(new StoredObject(P + "projects/p1/documents/d3/state.json", "0123", old, 10), "v1", false, false),
        csvRow(new StoredObject(P + "projects/p1/documents/d3/state.json", "", old, 0), "v2", true, true),
        csvRow(new StoredObject(P + "projects/p1/project.json", "4567", old, 3), "v0", false, false),
        csvRow(new StoredObject("elsewhere/projects/p9/old.json", "89ab", old, 100), "v7", false, false));
    String allVersions = writeCsv("all-versions", archive.snapshot().values(), extra);

    PlanResult counted = plan(Map.of("--listing", "inventory", "--inventory", allVersions));

    assertThat(counted.failure()).isNull();
    String countedText = "2 noncurrent versions (13 bytes) are already under " + P + " (in the S3 Inventory report"
        + " taken at " + TAKEN_AT + "): they too cost until they expire. ";
    assertThat(versioningNote(counted)).contains(" only when noncurrent versions expire. " + countedText
        + "Add a lifecycle rule");
    assertThat(counted.logLines()).anySatisfy(line -> assertThat(line).contains(countedText));
    assertThat(noncurrent(counted)).containsExactly(2L, 13L);

    PlanResult current = plan(Map.of("--listing", "inventory", "--inventory",
        writeInventory("ORC", "current-versions", archive.snapshot().values())));

    assertThat(current.failure()).isNull();
    assertThat(versioningNote(current)).contains(" only when noncurrent versions expire. The noncurrent versions"
        + " already under " + P + " are not counted: the S3 Inventory report lists current versions only"
        + " (IncludedObjectVersions Current); an S3 Inventory report of all versions");
    assertThat(noncurrent(current)).containsExactly(null, null);
  }

  @Test
  void executionVerifiesTheLiveBucketNotTheReport() throws InterruptedException {
    String manifest = writeInventory("Parquet", "stale", archive.snapshot().values());
    // After the inventory was taken: the deleted meeting gets a new file (it is coming back), and the
    // expired document's state file is deleted by the exporter.
    // LastModified has whole seconds on the test server: only a later second is "newer" (the contract).
    Thread.sleep(1_100);
    archive.put("projects/p1/meetings/m1/notes.txt", "new");
    archive.store().delete(List.of(new io.statesweep.store.DeleteTarget(P + "projects/p1/documents/d1/state.json", null)));
    Map<String, StoredObject> before = archive.snapshot();

    PlanResult planned = plan(Map.of("--listing", "inventory", "--inventory", manifest));
    assertThat(planned.failure()).isNull();
    // The report still shows the meeting without its new file: the plan deletes it.
    assertThat(planned.logLines()).contains("would delete " + P + "projects/p1/meetings/m1/meeting.json");
    Row gone = TableReader.of(planned.tables()).stateFiles()
        .filter("run_id = '" + planned.runId() + "' and key = '" + P + "projects/p1/documents/d1/state.json'")
        .select("status").first();
    assertThat(gone.getString(0)).isEqualTo("gone");

    ExecuteResult executed = new SparkExecuteAction(SharedSpark.session(),
        options(Map.of("--dry-run", "false", "--skip-approval", "true")).execute(), planned.runId()).execute();

    assertThat(executed.failure()).isNull();
    String outcome = TableReader.of(executed.tables()).executions()
        .filter("attempt_id = '" + executed.attemptId() + "' and state_file_key = '" + P
            + "projects/p1/meetings/m1/state.json'")
        .select("outcome").first().getString(0);
    assertThat(outcome).isEqualTo("kept_newer_files");
    Map<String, StoredObject> after = archive.snapshot();
    assertThat(after.keySet()).contains(P + "projects/p1/meetings/m1/meeting.json", P + ODD_NAME,
        P + "projects/p1/meetings/m1/notes.txt", P + "projects/p1/meetings/m1/state.json");
    // Only the live project's removed file went.
    Set<String> deleted = new TreeSet<>(before.keySet());
    deleted.removeAll(after.keySet());
    assertThat(deleted).containsExactly(P + "projects/p1/old.json");
  }

  @Test
  void refusesAReportOfAnotherBucketBeforeReadingIt() {
    String manifest = "s3a://" + INVENTORY_BUCKET + "/other/manifest.json";
    archiveOf(INVENTORY_BUCKET).write("other/manifest.json", manifestJson("some-other-bucket", "CSV",
        "Bucket, Key, Size, LastModifiedDate, ETag", List.of("other/data/none.csv.gz")).getBytes(StandardCharsets.UTF_8));

    PlanResult result = plan(Map.of("--listing", "inventory", "--inventory", manifest));

    assertThat(result.summary().complete()).isFalse();
    assertThat(result.failure()).isEqualTo("Inventory manifest " + manifest
        + " lists bucket 'some-other-bucket', not the export's bucket '" + bucket + "'");
  }

  @Test
  void aMissingManifestFailsTheRunWithItsLocation() {
    String manifest = "s3a://" + INVENTORY_BUCKET + "/nowhere/manifest.json";

    PlanResult result = plan(Map.of("--listing", "inventory", "--inventory", manifest));

    assertThat(result.failure()).isEqualTo("Inventory manifest " + manifest + " does not exist");
  }

  // --- writing inventory reports as S3 does ---

  private String writeInventory(String format, String config, java.util.Collection<StoredObject> objects) {
    if (format.equals("CSV")) {
      return writeCsv(config, objects, List.of());
    }
    SparkSession spark = SharedSpark.session();
    StructType schema = new StructType()
        .add("bucket", DataTypes.StringType, false)
        .add("key", DataTypes.StringType, false)
        .add("size", DataTypes.LongType, true)
        .add("last_modified_date", DataTypes.TimestampType, true)
        .add("e_tag", DataTypes.StringType, true)
        .add("storage_class", DataTypes.StringType, true);
    List<Row> rows = objects.stream().map(o -> RowFactory.create(bucket, o.key(), o.size(),
        Timestamp.from(o.lastModified()), o.etag(), "STANDARD")).toList();
    Dataset<Row> data = spark.createDataFrame(rows, schema).repartition(2);
    String folder = bucket + "/" + config + "/data-" + System.nanoTime();
    String fileSchema;
    if (format.equals("ORC")) {
      data.write().orc("s3a://" + INVENTORY_BUCKET + "/" + folder);
      fileSchema = "struct<bucket:string,key:string,size:bigint,last_modified_date:timestamp,e_tag:string,"
          + "storage_class:string>";
    } else {
      String previous = spark.conf().get("spark.sql.parquet.outputTimestampType");
      spark.conf().set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MILLIS");
      try {
        data.write().parquet("s3a://" + INVENTORY_BUCKET + "/" + folder);
      } finally {
        spark.conf().set("spark.sql.parquet.outputTimestampType", previous);
      }
      fileSchema = "message s3.inventory { required binary bucket (STRING); required binary key (STRING);"
          + " optional int64 size; optional int64 last_modified_date (TIMESTAMP(MILLIS,true));"
          + " optional binary e_tag (STRING); optional binary storage_class (STRING); }";
    }
    return writeManifest(config, format, fileSchema, dataFiles(folder, "." + format.toLowerCase()));
  }

  /** A CSV report as S3 writes it: gzip, no header, every field quoted, keys URL-encoded, versioned columns. */
  private String writeCsv(String config, java.util.Collection<StoredObject> objects, List<Row> extraRows) {
    SparkSession spark = SharedSpark.session();
    StructType schema = new StructType();
    for (String column : List.of("bucket", "key", "version_id", "is_latest", "is_delete_marker", "size",
        "last_modified_date", "e_tag")) {
      schema = schema.add(column, DataTypes.StringType, true);
    }
    List<Row> rows = new ArrayList<>();
    objects.forEach(o -> rows.add(csvRow(o, "v9", true, false)));
    rows.addAll(extraRows);
    String folder = bucket + "/" + config + "/data-" + System.nanoTime();
    spark.createDataFrame(rows, schema).repartition(2).write()
        .option("compression", "gzip").option("quoteAll", "true").option("header", "false")
        .csv("s3a://" + INVENTORY_BUCKET + "/" + folder);
    return writeManifest(config, "CSV",
        "Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, LastModifiedDate, ETag",
        dataFiles(folder, ".csv.gz"));
  }

  private Row csvRow(StoredObject o, String version, boolean latest, boolean deleteMarker) {
    String encoded = URLEncoder.encode(o.key(), StandardCharsets.UTF_8).replace("%2F", "/");
    return RowFactory.create(bucket, encoded, version, Boolean.toString(latest), Boolean.toString(deleteMarker),
        deleteMarker ? "" : Long.toString(o.size()), deleteMarker ? "" : o.lastModified().toString(),
        deleteMarker ? "" : o.etag());
  }

  private List<String> dataFiles(String folder, String suffix) {
    List<String> keys = new ArrayList<>();
    archiveOf(INVENTORY_BUCKET).listAll(folder + "/", object -> {
      if (object.key().endsWith(suffix)) {
        keys.add(object.key());
      }
    });
    assertThat(keys).as("data files written under " + folder).isNotEmpty();
    return keys;
  }

  private String writeManifest(String config, String format, String fileSchema, List<String> files) {
    String key = bucket + "/" + config + "/2026-11-28T01-00Z/manifest.json";
    archiveOf(INVENTORY_BUCKET).write(key, manifestJson(bucket, format, fileSchema, files)
        .getBytes(StandardCharsets.UTF_8));
    return "s3a://" + INVENTORY_BUCKET + "/" + key;
  }

  private String manifestJson(String sourceBucket, String format, String fileSchema, List<String> files) {
    String fileList = files.stream().map(f -> "{\"key\": \"" + f + "\", \"size\": 1, \"MD5checksum\": \"00\"}")
        .collect(Collectors.joining(", "));
    return "{\"sourceBucket\": \"" + sourceBucket + "\", \"destinationBucket\": \"arn:aws:s3:::" + INVENTORY_BUCKET
        + "\", \"version\": \"2016-11-30\", \"creationTimestamp\": \"" + TAKEN_AT.toEpochMilli()
        + "\", \"fileFormat\": \"" + format + "\", \"fileSchema\": \"" + fileSchema + "\", \"files\": [" + fileList
        + "]}";
  }

  // --- running and reading back ---

  private PlanResult plan(Map<String, String> extra) {
    return new SparkPlanAction(SharedSpark.session(), options(extra).plan()).execute();
  }

  private RunOptions options(Map<String, String> extra) {
    return TestOptions.of(server.endpoint(), bucket, P, warehouse).with("--log-lines", "all")
        .with("--reuse-state-files", "false").with(extra).options();
  }

  /** Each record's plan: state file, action, reason and the exact keys to delete (ETag, size), in order. */
  private static Dataset<Row> planRows(PlanResult result) {
    return TableReader.of(result.tables()).deletionPlan(result.runId())
        .selectExpr("state_file_key", "action", "reason",
            "transform(deletes, d -> struct(d.key as key, d.etag as etag, d.size as size)) as deletes");
  }

  private static String versioningNote(PlanResult result) {
    return TableReader.of(result.tables()).runs(result.runId()).select("versioning_note").first().getString(0);
  }

  /** The plan's noncurrent_versions and noncurrent_bytes, null where not counted. */
  private static List<Object> noncurrent(PlanResult result) {
    Row row = TableReader.of(result.tables()).runs(result.runId()).select("noncurrent_versions", "noncurrent_bytes")
        .first();
    return java.util.Arrays.asList(row.get(0), row.get(1));
  }

  private static Row runRow(PlanResult result) {
    return TableReader.of(result.tables()).runs(result.runId())
        .select("listing", "inventory_manifest", "inventory_date").first();
  }

  private ObjectStore archiveOf(String bucket) {
    return S3ObjectStore.open(server.s3Settings(), bucket);
  }
}
