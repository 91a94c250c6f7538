package io.statesweep.jobs;

import static io.statesweep.jobs.CommandOutput.run;
import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.statesweep.local.LocalS3Server;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * pipeline/README.md, "Keys in printed lines", a key is data, printed escaped: keys that hold a line feed followed by a
 * summary line or an alert phrase, among normal records, through {@code plan}, {@code approve} (an approver's name and
 * a run id that hold the same) and {@code execute --run-id} on the command line. What a user sees on stdout and stderr
 * has exactly one {@code summary:} line per run and no line that starts with a forged phrase; each hostile key is
 * visible, escaped; the tables hold the raw keys; and the bucket loses exactly the planned keys.
 *
 * <p>The archive: a due record's file {@code a\nrefused to delete FORGED.pdf} and its attachment {@code x\nsummary:
 * dry_run=false complete=true ... errors=0 .state.json} (skipped as a state-file name), a state file whose folder
 * holds a summary line, a live record's missing file, a file written again before the execute (the record is coming
 * back), a key in another record's folder (refused by the plan), a plan row widened to an unlisted key (refused by
 * the execute). {@code approve} prints no summary line; no line starts with a forged phrase however a reader splits
 * lines ({@code \n}, {@code \r}, VT, FF, NEL, U+2028, U+2029).
 */
@ExtendWith(S3ServerExtension.class)
class KeysInLinesTest {
  private static final String BUCKET = "hostile-lines";
  private static final String P = "cogram/";
  private static final String FORGED_SUMMARY = "summary: dry_run=false complete=true state_files_scanned=1"
      + " records_deleted=0 child_keys_deleted=0 records_kept=0 kept_newer_files=0 kept_refused=0 skipped=0 errors=0";

  // A due record whose file forges an alert line, and whose attachment (named like a state file) a summary line.
  private static final String FORGED = "projects/p1/documents/forged/";
  private static final String FORGED_FILE = FORGED + "a\nrefused to delete FORGED.pdf";
  private static final String FORGED_ATTACHMENT = FORGED + "attachments/x\n" + FORGED_SUMMARY + " .state.json";
  // A due record whose very state file key holds a line feed and a summary line.
  private static final String FORGED_RECORD = "projects/p1/meetings/m\n" + FORGED_SUMMARY + "/";
  // A live record that lists a file the bucket lacks: a missing line.
  private static final String LOST = "projects/p1/documents/lost/";
  private static final String LOST_FILE = LOST + "b\n" + FORGED_SUMMARY + ".pdf";
  // A due record whose file is written again between the plan and its execute: the record is coming back.
  private static final String BACK = "projects/p1/documents/back/";
  private static final String BACK_FILE = BACK + "c\nthe record is coming back.pdf";
  // A due record that lists a key in another record's folder: refused by the plan.
  private static final String REFUSED = "projects/p1/documents/refused/";
  private static final String REFUSED_KEY = "projects/p1/documents/d2/z\nrefused to delete FORGED.pdf";
  // A due record whose plan row is widened to a key it does not list: refused by the execute.
  private static final String WIDENED = "projects/p1/documents/widened/";
  private static final String WIDENED_KEY = WIDENED + "y\nrefused to delete FORGED.pdf";
  private static final String APPROVER = "ana\n" + FORGED_SUMMARY;

  @Test
  void noKeyStartsALineAndEveryRunPrintsOneSummaryWhileTheRecordsAreExecutedExactly(LocalS3Server server,
      @TempDir Path warehouse) throws Exception {
    TestArchive archive = new TestArchive(server, BUCKET, P);
    // The lost file's live record is written first, over a second before the listing begins (LastModified has
    // whole seconds), so the plan reports the file missing.
    long lostWritten = System.nanoTime();
    archive.put(LOST + "state.json", archive.state(false, null, List.of(LOST_FILE), List.of()));
    Set<String> expectedDeletes = seed(archive);
    Thread.sleep(Math.max(0, 2_000 - (System.nanoTime() - lostWritten) / 1_000_000));
    Map<String, StoredObject> before = archive.snapshot();
    Map<String, String> environment = Map.of("COGRAM_CLEANUP_BUCKET", BUCKET, "COGRAM_CLEANUP_PREFIX", P,
        "STATESWEEP_ENDPOINT", server.endpoint(), "STATESWEEP_WAREHOUSE", warehouse.toString());

    CommandOutput plan = run(environment, "plan", "--log-lines", "all");
    String runId = field(plan.summary(), "run_id");
    archive.put(BACK_FILE, "written again: the record is coming back");
    widenPlanRow(warehouse, runId, archive.snapshot().get(P + WIDENED_KEY));
    CommandOutput approve = run(Map.of(), "approve", "--run-id", runId, "--by", APPROVER, "--warehouse",
        warehouse.toString());
    CommandOutput noSuchRun = run(Map.of(), "approve", "--run-id", "x\n" + FORGED_SUMMARY, "--by", "ana",
        "--warehouse", warehouse.toString());
    CommandOutput execute = run(environment, "execute", "--run-id", runId);

    assertThat(plan.code()).as(plan.all()).isZero();
    assertThat(approve.code()).as(approve.all()).isZero();
    assertThat(execute.code()).as(execute.all()).isZero();
    assertNoForgedLine(plan, 1);
    assertNoForgedLine(execute, 1);
    assertNoForgedLine(approve, 0);
    assertNoForgedLine(noSuchRun, 0);

    assertThat(plan.lines()).contains(
        "would delete " + escaped(P + FORGED_FILE),
        "would delete " + escaped(P + FORGED_ATTACHMENT),
        "would delete " + escaped(P + FORGED_RECORD + "minutes.pdf"),
        "would delete " + escaped(P + FORGED_RECORD + "state.json"),
        "missing " + escaped(P + LOST_FILE) + ": listed by live record " + P + LOST + "state.json",
        "kept " + P + REFUSED + "state.json: refused to delete " + escaped(P + REFUSED_KEY)
            + ": it is outside the record's folder " + P + REFUSED);
    assertThat(plan.lines()).anyMatch(line -> line.startsWith("skipped " + escaped(P + FORGED_ATTACHMENT) + ": "));
    assertThat(approve.lines().get(0)).startsWith("approved run " + runId + " by " + escaped(APPROVER) + " at ");
    assertThat(noSuchRun.code()).isEqualTo(StatesweepCli.BAD_SETTINGS);
    assertThat(noSuchRun.errors()).isEqualTo("statesweep: No plan with run id " + escaped("x\n" + FORGED_SUMMARY)
        + " in " + warehouse + "/runs: run plan first, and give its run_id\n");
    assertThat(execute.lines()).anyMatch(line -> line.startsWith("kept " + P + BACK + "state.json: the record is"
        + " coming back: " + escaped(P + BACK_FILE) + " "));
    assertThat(execute.lines()).anyMatch(line -> line.startsWith("kept " + P + WIDENED + "state.json: refused to"
        + " delete " + escaped(P + WIDENED_KEY) + ": "));
    assertThat(field(execute.summary(), "records_deleted")).isEqualTo("4");

    // The tables hold the keys as they are.
    SparkSession spark = SparkSession.builder().getOrCreate();
    List<String> planned = TableReader.of(spark, warehouse).deletionPlan(runId).selectExpr("explode(deletes.key)")
        .as(Encoders.STRING()).collectAsList();
    assertThat(planned).contains(P + FORGED_FILE, P + FORGED_ATTACHMENT, P + FORGED_RECORD + "state.json",
        P + WIDENED_KEY);
    assertThat(TableReader.of(spark, warehouse).stateFiles().filter(col("run_id").equalTo(runId)
        .and(col("status").equalTo("skipped"))).select("key").as(Encoders.STRING()).collectAsList())
        .containsExactly(P + FORGED_ATTACHMENT);
    Map<String, String> outcomes = new TreeMap<>();
    Map<String, String> messages = new TreeMap<>();
    for (Row row : TableReader.of(spark, warehouse).executions()
        .filter(col("attempt_id").equalTo(field(execute.summary(), "attempt_id")))
        .select("state_file_key", "outcome", "message").collectAsList()) {
      outcomes.put(row.getString(0), row.getString(1));
      messages.put(row.getString(0), row.getString(2));
    }
    assertThat(outcomes).containsEntry(P + FORGED + "state.json", "deleted")
        .containsEntry(P + FORGED_RECORD + "state.json", "deleted")
        .containsEntry(P + BACK + "state.json", "kept_newer_files")
        .containsEntry(P + WIDENED + "state.json", "kept_refused");
    assertThat(messages.get(P + WIDENED + "state.json")).startsWith("refused to delete " + P + WIDENED_KEY + ": ");
    assertThat(TableReader.of(spark, warehouse).approvals(runId)
        .select("approved_by").as(Encoders.STRING()).collectAsList()).containsExactly(APPROVER);

    // The bucket lost exactly the planned keys of the records that were executed.
    Set<String> expectedLeft = new TreeSet<>(before.keySet());
    expectedLeft.removeAll(expectedDeletes);
    assertThat(archive.snapshot().keySet()).isEqualTo(expectedLeft);
  }

  /** The archive; returns the keys that the execute deletes. */
  private static Set<String> seed(TestArchive archive) {
    Set<String> deletes = new TreeSet<>();
    // Normal records: a due folder record, a live one, a due single-file record, a live one with a removed file.
    String d1 = "projects/p1/documents/d1/";
    put(archive, d1 + "a.pdf", d1 + "b.pdf");
    archive.put(d1 + "state.json", archive.state(true, null, List.of(d1 + "a.pdf", d1 + "b.pdf"), List.of()));
    deletes.addAll(keys(d1 + "a.pdf", d1 + "b.pdf", d1 + "state.json"));
    String d2 = "projects/p1/documents/d2/";
    put(archive, d2 + "a.pdf");
    archive.put(d2 + "state.json", archive.state(false, null, List.of(d2 + "a.pdf"), List.of()));
    put(archive, "organization/agents/ag1.json");
    archive.put("organization/agents/ag1.state.json", archive.state(true, null,
        List.of("organization/agents/ag1.json"), List.of()));
    deletes.addAll(keys("organization/agents/ag1.json", "organization/agents/ag1.state.json"));
    String e1 = "projects/p1/emails/e1/";
    put(archive, e1 + "keep.pdf", e1 + "old.pdf");
    archive.put(e1 + "state.json", archive.state(false, null, List.of(e1 + "keep.pdf"), List.of(e1 + "old.pdf")));
    deletes.addAll(keys(e1 + "old.pdf"));

    // Hostile keys.
    put(archive, FORGED_FILE, FORGED_ATTACHMENT);
    archive.put(FORGED + "state.json", archive.state(true, null, List.of(FORGED_FILE, FORGED_ATTACHMENT), List.of()));
    deletes.addAll(keys(FORGED_FILE, FORGED_ATTACHMENT, FORGED + "state.json"));
    put(archive, FORGED_RECORD + "minutes.pdf");
    archive.put(FORGED_RECORD + "state.json", archive.state(true, null, List.of(FORGED_RECORD + "minutes.pdf"),
        List.of()));
    deletes.addAll(keys(FORGED_RECORD + "minutes.pdf", FORGED_RECORD + "state.json"));
    put(archive, BACK_FILE);
    archive.put(BACK + "state.json", archive.state(true, null, List.of(BACK_FILE), List.of()));
    archive.put(REFUSED + "state.json", archive.state(true, null, List.of(REFUSED_KEY), List.of()));
    put(archive, WIDENED + "ok.pdf", WIDENED_KEY);
    archive.put(WIDENED + "state.json", archive.state(true, null, List.of(WIDENED + "ok.pdf"), List.of()));
    return deletes;
  }

  private static void put(TestArchive archive, String... relativeKeys) {
    for (String key : relativeKeys) {
      archive.put(key, "content of " + key);
    }
  }

  private static List<String> keys(String... relativeKeys) {
    return Arrays.stream(relativeKeys).map(key -> P + key).toList();
  }

  /**
   * The widened record's plan row deletes one key more, a file in its folder that its state file does not list (as
   * anyone who can write the plan table could do before the review): its execute refuses the record.
   */
  private static void widenPlanRow(Path warehouse, String runId, StoredObject extra) {
    SparkSession spark = SparkSession.builder().getOrCreate();
    Column first = col("deletes").getItem(0);
    Column entry = struct(lit(extra.key()).as("key"), lit(extra.etag()).as("etag"),
        first.getField("last_modified").as("last_modified"), first.getField("size").as("size"),
        first.getField("role").as("role"));
    DeltaTable.forPath(spark, warehouse + "/deletion_plan").update(
        col("run_id").equalTo(runId).and(col("state_file_key").equalTo(P + WIDENED + "state.json")),
        Map.of("deletes", concat(array(entry), col("deletes"))));
  }

  /**
   * Every line as a reader may split the output (line feed, carriage return, vertical tab, form feed, NEL, line and
   * paragraph separators): {@code summaries} lines start with {@code summary:} (one per run), and none starts with
   * an alert phrase or a forged part of a key.
   */
  private static void assertNoForgedLine(CommandOutput output, int summaries) {
    List<String> lines = new ArrayList<>(Arrays.asList(output.all().split("\r\n|[\n\r\u000b\f\u0085\u2028\u2029]")));
    assertThat(lines.stream().filter(line -> line.startsWith("summary:")).toList()).as(output.all())
        .hasSize(summaries);
    assertThat(lines).as(output.all()).noneMatch(line -> line.startsWith("refused to delete")
        || line.startsWith("the record is coming back") || line.startsWith("FORGED") || line.startsWith(" .state.json")
        || line.startsWith(".pdf") || line.startsWith("/state.json") || line.startsWith("/minutes.pdf"));
  }

  /** A key as the lines print it: a line feed as {@code \n}. */
  private static String escaped(String key) {
    return key.replace("\\", "\\\\").replace("\n", "\\n");
  }

  private static String field(String summary, String name) {
    Matcher matcher = Pattern.compile(" " + name + "=(\\S+)").matcher(summary);
    assertThat(matcher.find()).as(name + " in " + summary).isTrue();
    return matcher.group(1);
  }
}
