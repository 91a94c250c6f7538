package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.api.ExecuteResult;
import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.layout.Classification;
import io.statesweep.layout.Keys;
import io.statesweep.local.LocalS3Server;
import io.statesweep.plan.LineText;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.scan.StateFileRead;
import io.statesweep.scan.StateFileReader;
import io.statesweep.state.StateParser;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input end to end (issue 7, "prove that nothing is lost"): one archive on the S3 test server with a
 * record per kind of bad state file or bad listed key, planned once and executed once (dry run off, no
 * approval). Each case gets its named outcome with a message naming the key and the field or rule, the
 * run completes, and after execution every key that must stay is still there, unchanged.
 *
 * <p>The unit tests of {@code StateParserTest}, {@code PlannerTest} and {@code KeyClassifierTest} cover the
 * same rules on plain values; this class proves they hold through listing, reading, the Spark joins,
 * the Delta tables and the deletes.
 *
 * <p>The cases: not JSON, empty, over {@code --max-state-bytes}, 100,000 levels of nesting, wrong types, duplicate
 * fields; timestamps of year +999999999, year 1 and a negative year; lone surrogates in {@code files} and {@code
 * delete_files}, beside the {@code ?} and U+FFFD keys an encoder would make of them; listed keys with {@code ..},
 * {@code //}, a leading {@code /}, URLs, other buckets, outside the prefix, inside {@code _cogram/}, inside another
 * record, naming a state file; a 100,000-key {@code files} list; duplicates; NFC/NFD unicode; due records with keys
 * holding U+0001, {@code \r} and {@code \r\n} beside a live record holding their {@code \n} twins. It checks each
 * outcome and message, that the run completes with {@code errors=0}, and that the bucket afterwards is the bucket
 * before minus exactly the planned keys.
 */
@ExtendWith(S3ServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {
  private static final String BUCKET = "bad-input";
  private static final String OTHER_BUCKET = "bad-input-other";
  private static final String P = "bad/";
  /** Below the default (16 MiB), so that one plan holds a document over it, one byte over it, and one at it. */
  private static final int MAX_STATE_BYTES = 3 * 1024 * 1024;
  private static final int BIG_LIST = 100_000;
  private static final int BIG_LIST_EXISTING = 3;

  private static final String CAFE_NFC = "caf\u00e9";
  private static final String CAFE_NFD = "cafe\u0301";
  private static final String CHINESE = "\u4e2d\u6587";
  private static final String EMOJI = "\ud83d\ude00";
  private static final String COMBINING = "n\u0303o\u0308";
  private static final String AGENT_NFC = "ag\u00e9nt";
  private static final String AGENT_NFD = "age\u0301nt";

  private LocalS3Server server;
  private String warehouse;
  private TestArchive archive;
  private ObjectStore otherBucket;
  private Map<String, StoredObject> before;
  private Map<String, StoredObject> after;
  private Map<String, StoredObject> otherBefore;
  private Map<String, StoredObject> otherAfter;
  private PlanResult plan;
  private ExecuteResult execution;
  private double planSeconds;
  private final Map<String, PlanOutcome> plans = new TreeMap<>();
  private final Map<String, StateFileOutcome> stateFiles = new TreeMap<>();
  private final Map<String, String> executions = new TreeMap<>();

  /** A deletion_plan row, as asserted here. */
  private record PlanOutcome(String action, String reason, List<String> deletes, int missingKeys) {}

  /** A state_files row, as asserted here. */
  private record StateFileOutcome(String status, String message, Integer rawJsonLength, Integer files) {}

  @BeforeAll
  void planAndExecuteOnce(LocalS3Server server, @TempDir Path warehouse) {
    this.server = server;
    this.warehouse = warehouse.toString();
    archive = new TestArchive(server, BUCKET, P);
    server.createBucket(OTHER_BUCKET);
    otherBucket = S3ObjectStore.open(server.s3Settings(), OTHER_BUCKET);
    seedBadDocuments();
    seedBadListedKeys();
    seedBigList();
    seedDuplicates();
    seedUnicode();
    seedValuesNoTableOrRequestCanCarry();
    archive.put("_cogram/manifest.json", "{}");
    archive.store().write("bad-copy/projects/p1/meetings/outside/minutes.pdf", bytes("pdf"));
    otherBucket.write(P + "projects/p1/meetings/arn/minutes.pdf", bytes("pdf"));
    otherBucket.write(P + "projects/p1/meetings/other-url/minutes.pdf", bytes("pdf"));
    before = archive.snapshot();
    otherBefore = snapshot(otherBucket);

    long started = System.nanoTime();
    plan = new SparkPlanAction(SharedSpark.session(), options(Map.of()).plan()).execute();
    planSeconds = (System.nanoTime() - started) / 1e9;
    execution = new SparkExecuteAction(SharedSpark.session(),
        options(Map.of("--dry-run", "false", "--skip-approval", "true")).execute(), plan.runId()).execute();

    after = archive.snapshot();
    otherAfter = snapshot(otherBucket);
    readTables();
  }

  // ---- the run as a whole ----

  @Test
  void planAndExecutionCompleteWithoutErrorsDespiteEveryBadInput() {
    assertThat(plan.failure()).isNull();
    assertThat(plan.summary().line()).startsWith("summary: dry_run=true complete=true state_files_scanned=39"
        + " records_deleted=9 child_keys_deleted=16 records_kept=30 kept_newer_files=0 kept_refused=11 skipped=0"
        + " errors=0 bad_state=14 ");
    assertThat(execution.failure()).isNull();
    assertThat(execution.summary().line()).startsWith("summary: dry_run=false complete=true state_files_scanned=39"
        + " records_deleted=9 child_keys_deleted=16 records_kept=30 kept_newer_files=0 kept_refused=11 skipped=0"
        + " errors=0 state_changed=0 already_deleted=0 changed_during_delete=0 came_back_during_delete=0 bad_state=14"
        + " missing_files=0 ");
    assertThat(executions).containsOnlyKeys(plans.entrySet().stream()
        .filter(entry -> entry.getValue().action().startsWith("delete_")).map(Map.Entry::getKey).toList());
    assertThat(executions.values()).containsOnly("deleted");
  }

  @Test
  void executionDeletesExactlyThePlannedKeysAndEveryOtherKeyStaysUnchanged() {
    Set<String> planned = new TreeSet<>();
    plans.values().forEach(row -> planned.addAll(row.deletes()));
    assertThat(planned).containsExactlyInAnyOrderElementsOf(expectedDeletes());

    Map<String, StoredObject> expectedLeft = new TreeMap<>(before);
    planned.forEach(expectedLeft::remove);
    assertThat(after).isEqualTo(expectedLeft);
    assertThat(otherAfter).isEqualTo(otherBefore);
  }

  // ---- bad documents: bad_state, kept whole ----

  @Test
  void stateFileThatIsNotJsonIsBadStateAndItsRecordStays() {
    assertBadState("projects/p1/documents/not-json/state.json", "not JSON: Unrecognized token 'delete': was expecting"
        + " (JSON String, Number, Array, Object or token 'null', 'true' or 'false')");
  }

  @Test
  void emptyStateFileIsBadStateAndItsRecordStays() {
    assertBadState("projects/p1/documents/empty/state.json", "the document is empty");
  }

  @Test
  void tenMegabyteStateFileOverMaxStateBytesIsBadStateAndItsRecordStays() {
    String key = "projects/p1/documents/ten-mb/state.json";
    assertBadState(key, "the document is larger than " + MAX_STATE_BYTES + " bytes");
    assertThat(stateFiles.get(P + key).rawJsonLength()).as("no half document in raw_json").isNull();
  }

  @Test
  void stateFileOneByteOverMaxStateBytesIsBadStateAndItsRecordStays() {
    String key = "projects/p1/documents/one-over/state.json";
    assertThat(before.get(P + key).size()).isEqualTo(MAX_STATE_BYTES + 1L);
    assertBadState(key, "the document is larger than " + MAX_STATE_BYTES + " bytes");
  }

  @Test
  void stateFileOfExactlyMaxStateBytesIsReadAndPlanned() {
    String key = P + "projects/p1/documents/at-limit/state.json";
    assertThat(before.get(key).size()).isEqualTo(MAX_STATE_BYTES);
    assertThat(stateFiles.get(key).status()).isEqualTo("read");
    assertThat(stateFiles.get(key).rawJsonLength()).isEqualTo(MAX_STATE_BYTES);
    assertThat(plans.get(key).action()).isEqualTo("delete_record");
    assertThat(plans.get(key).deletes()).containsExactly(P + "projects/p1/documents/at-limit/doc.pdf", key);
    assertThat(after).doesNotContainKeys(P + "projects/p1/documents/at-limit/doc.pdf", key);
  }

  @Test
  void tenMegabyteStateFileIsReadUnderTheDefaultMaxStateBytes() {
    RunOptions defaults = RunOptions.from(Settings.resolve(Map.of("--bucket", BUCKET, "--prefix", P), Map.of(), null));
    assertThat(defaults.export().maxStateBytes()).isEqualTo(16 * 1024 * 1024).isEqualTo(StateParser.DEFAULT_MAX_DOCUMENT_BYTES);
    String key = P + "projects/p1/documents/ten-mb/state.json";
    Classification.StateFile stateFile =
        (Classification.StateFile) defaults.export().layout().classifier(defaults.export().prefix()).classify(key);

    StateFileRead read;
    try (StateFileReader reader = new StateFileReader(archive.store(),
        new StateParser(defaults.export().layout().markedAtFields()), defaults.export().maxStateBytes(), 1)) {
      read = reader.read(stateFile);
    }

    assertThat(read.parsed().error()).isNull();
    assertThat(read.parsed().document().delete()).isTrue();
    assertThat(read.parsed().document().files()).containsExactly(P + "projects/p1/documents/ten-mb/doc.pdf");
  }

  @Test
  void hundredThousandNestedArraysAreBadStateAndTheRecordStays() {
    assertBadState("projects/p1/documents/deep/state.json",
        "not JSON: Depth (201) exceeds the maximum allowed nesting depth (200)");
  }

  @Test
  void deleteThatIsAStringIsBadStateNamingTheField() {
    assertBadState("projects/p1/documents/delete-yes/state.json", "field delete is not a boolean but a string (\"yes\")");
  }

  @Test
  void filesThatIsAStringIsBadStateNamingTheField() {
    assertBadState("projects/p1/documents/files-a/state.json", "field files is not an array but a string (\"a\")");
  }

  @Test
  void expiresAtThatIsANumberIsBadStateNamingTheField() {
    assertBadState("projects/p1/documents/expires-5/state.json",
        "field expires_at is not a timestamp string but a number (5)");
  }

  @Test
  void duplicatedFieldNameIsBadStateNamingTheField() {
    assertBadState("projects/p1/documents/delete-twice/state.json", "not JSON: Duplicate field 'delete'");
  }

  // ---- values no table or request can carry: bad_state naming the field, or a request of their own ----

  @Test
  void aTimestampPastWhatATableCanHoldIsBadStateAndTheOtherRecordsAreStillPlanned() {
    assertBadState("projects/p1/documents/expires-far/state.json",
        "field expires_at is outside 1900-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z: \"+999999999-12-31T23:59:59Z\"");
  }

  @Test
  void aZeroTimeIsBadStateAndTheStateFilesTableIsStillWritten() {
    assertBadState("projects/p1/documents/expires-zero/state.json",
        "field expires_at is outside 1900-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z: \"0001-01-01T00:00:00Z\"");
    assertBadState("projects/p1/documents/deleted-at-negative/state.json",
        "field deleted_at is outside 1900-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z: \"-000100-01-01T00:00:00Z\"");
  }

  @Test
  void aLoneSurrogateInDeleteFilesIsBadStateAndNeitherRepairOfTheKeyIsDeleted() {
    String folder = "projects/p1/documents/surrogate-live/";
    assertBadState(folder + "state.json", "field delete_files[0] is not valid Unicode: a lone surrogate \\ud800 at"
        + " character " + (P + folder + "a").length());
    assertStays(P + folder + "a?b.pdf", P + folder + "a\ufffdb.pdf");
  }

  @Test
  void aLoneSurrogateInFilesIsBadStateNamingTheEntry() {
    assertBadState("projects/p1/documents/surrogate-due/state.json",
        "field files[1] is not valid Unicode: a lone surrogate \\udc00 at character "
            + (P + "projects/p1/documents/surrogate-due/b").length());
  }

  @Test
  void aKeyXmlCannotCarryIsDeletedAloneAndTheRecordsSharingItsRequestAreDeletedToo() {
    String folder = P + "projects/p1/meetings/xml-control/";
    assertThat(plans.get(folder + "state.json").deletes())
        .containsExactly(folder + "minutes.pdf", folder + "a\u0001b.pdf", folder + "state.json");
    assertThat(executions.get(folder + "state.json")).isEqualTo("deleted");
    assertThat(after).doesNotContainKeys(folder + "minutes.pdf", folder + "a\u0001b.pdf", folder + "state.json");
    assertThat(executions).as("every record of the run, which shared one DeleteObjects request").containsValue("deleted")
        .doesNotContainValue("failed");
  }

  @Test
  void keysWithCarriageReturnsAreDeletedExactlyAndTheirLineFeedTwinsStay() {
    String folder = P + "projects/p1/meetings/xml-cr/";
    assertThat(plans.get(folder + "state.json").deletes())
        .containsExactly(folder + "cr\r.pdf", folder + "crlf\r\n.pdf", folder + "state.json");
    assertThat(executions.get(folder + "state.json")).isEqualTo("deleted");
    assertThat(after).doesNotContainKeys(folder + "cr\r.pdf", folder + "crlf\r\n.pdf", folder + "state.json");
    String twins = P + "projects/p1/meetings/xml-cr-twins/";
    assertStays(twins + "cr\n.pdf", twins + "crlf\n.pdf", twins + "state.json");
  }

  // ---- bad listed keys: kept_refused, kept whole ----

  @Test
  void listedKeyWithADotDotSegmentIsRefused() {
    assertRefused("projects/p1/meetings/dot-dot/state.json", P + "projects/p1/meetings/dot-dot/../victim/minutes.pdf",
        "the key has a '..' segment");
    assertStays(P + "projects/p1/meetings/victim/minutes.pdf");
  }

  @Test
  void listedKeyWithADoubleSlashIsRefused() {
    assertRefused("projects/p1/meetings/double-slash/state.json",
        P + "projects/p1/meetings/double-slash//minutes.pdf", "the key has an empty segment");
  }

  @Test
  void listedKeyWithALeadingSlashIsRefused() {
    assertRefused("projects/p1/meetings/leading-slash/state.json",
        "/" + P + "projects/p1/meetings/leading-slash/minutes.pdf", "the key starts with a slash");
  }

  @Test
  void listedS3UrlIsRefused() {
    assertRefused("projects/p1/meetings/s3-url/state.json",
        "s3://" + BUCKET + "/" + P + "projects/p1/meetings/s3-url/minutes.pdf", "the key has an empty segment");
  }

  @Test
  void listedArnOfAnotherBucketIsRefusedAndThatBucketIsUntouched() {
    assertRefused("projects/p1/meetings/arn/state.json",
        "arn:aws:s3:::" + OTHER_BUCKET + "/" + P + "projects/p1/meetings/arn/minutes.pdf",
        "it is outside the export prefix " + P);
    assertThat(otherAfter).containsEntry(P + "projects/p1/meetings/arn/minutes.pdf",
        otherBefore.get(P + "projects/p1/meetings/arn/minutes.pdf"));
  }

  @Test
  void listedUrlOfAnotherBucketIsRefusedAndThatBucketIsUntouched() {
    assertRefused("projects/p1/meetings/other-url/state.json",
        "https://" + OTHER_BUCKET + ".s3.amazonaws.com/" + P + "projects/p1/meetings/other-url/minutes.pdf",
        "the key has an empty segment");
    assertThat(otherAfter).containsEntry(P + "projects/p1/meetings/other-url/minutes.pdf",
        otherBefore.get(P + "projects/p1/meetings/other-url/minutes.pdf"));
  }

  @Test
  void listedKeyOutsideThePrefixIsRefused() {
    assertRefused("projects/p1/meetings/outside/state.json", "bad-copy/projects/p1/meetings/outside/minutes.pdf",
        "it is outside the export prefix " + P);
    assertStays("bad-copy/projects/p1/meetings/outside/minutes.pdf");
  }

  @Test
  void listedKeyInTheExportersFolderIsRefused() {
    assertRefused("projects/p1/meetings/exporter/state.json", P + "_cogram/manifest.json",
        "it is inside the exporter's own folder " + P + "_cogram/");
    assertStays(P + "_cogram/manifest.json");
  }

  @Test
  void listedKeyInsideAnotherRecordsFolderIsRefused() {
    assertRefused("projects/p2/state.json", P + "projects/p2/meetings/live/minutes.pdf",
        "it belongs to another record, whose state file is " + P + "projects/p2/meetings/live/state.json");
    assertThat(plans.get(P + "projects/p2/meetings/live/state.json").action()).isEqualTo("keep");
    assertStays(P + "projects/p2/meetings/live/minutes.pdf", P + "projects/p2/meetings/live/state.json");
  }

  @Test
  void listedStateFileOfAnotherRecordIsRefused() {
    assertRefused("projects/p3/state.json", P + "projects/p3/meetings/live/state.json",
        "it is the state file of another record");
    assertStays(P + "projects/p3/meetings/live/minutes.pdf", P + "projects/p3/meetings/live/state.json");
  }

  // ---- big lists, duplicates ----

  @Test
  void hundredThousandListedFilesArePlannedInReasonableTime() {
    String key = P + "workflows/big/state.json";
    assertThat(before.get(key).size()).isBetween(2_000_000L, (long) MAX_STATE_BYTES);
    assertThat(stateFiles.get(key).status()).isEqualTo("read");
    assertThat(stateFiles.get(key).files()).isEqualTo(BIG_LIST);
    PlanOutcome row = plans.get(key);
    assertThat(row.action()).isEqualTo("delete_record");
    assertThat(row.deletes()).containsExactly(P + "workflows/big/f00000", P + "workflows/big/f00001",
        P + "workflows/big/f00002", key);
    assertThat(row.missingKeys()).isEqualTo(BIG_LIST - BIG_LIST_EXISTING);
    // Generous for a busy 2-core machine; a step quadratic in the list's length would take hours.
    assertThat(planSeconds).as("seconds to plan the whole archive").isLessThan(120);
    assertThat(executions.get(key)).isEqualTo("deleted");
    assertStays(P + "workflows/big/unlisted.txt");
  }

  /**
   * A rerun after an attempt that deleted most of a big record's files: its state file still lists
   * them all. The folder listing already says which exist; execution must not ask again key by key.
   */
  @Test
  void executionOfAHundredThousandKeyRecordDoesNotLookUpEachMissingKey() throws Exception {
    JsonNode requests = new ObjectMapper().readTree(execution.metricsJson()).path("s3_requests");
    long lookups = requests.path("HeadObject").path("calls").asLong()
        + requests.path("ListObjectsV2").path("calls").asLong();

    // A folder listing or a one-key lookup (the <id>.json of a single-file record) per record, each a page
    // here; 99,997 lookups take a minute here, hours on S3.
    assertThat(lookups).as("HEAD and LIST requests of the execution (" + requests + ")")
        .isLessThanOrEqualTo(2L * plans.size());
  }

  @Test
  void duplicatedListedKeysArePlannedAndDeletedOnce() {
    String key = P + "projects/p1/documents/dupes/state.json";
    PlanOutcome row = plans.get(key);
    assertThat(row.action()).isEqualTo("delete_record");
    assertThat(row.deletes()).containsExactly(P + "projects/p1/documents/dupes/a.pdf",
        P + "projects/p1/documents/dupes/b.pdf", key);
    assertThat(executions.get(key)).isEqualTo("deleted");
    assertThat(after).doesNotContainKeys(P + "projects/p1/documents/dupes/a.pdf", P + "projects/p1/documents/dupes/b.pdf",
        key);
  }

  // ---- unicode keys ----

  @Test
  void unicodeKeysAreDeletedExactlyAsListedAndTheUnlistedNfdTwinStays() {
    String folder = P + "projects/pu/documents/u1/";
    PlanOutcome row = plans.get(folder + "state.json");
    assertThat(row.action()).isEqualTo("delete_record");
    assertThat(row.deletes()).containsExactly(folder + CAFE_NFC + ".pdf", folder + CHINESE + ".txt",
        folder + EMOJI + ".png", folder + COMBINING + ".txt", folder + "state.json");
    assertThat(after).doesNotContainKeys(row.deletes().toArray(String[]::new));
    assertStays(folder + CAFE_NFD + ".pdf");
  }

  @Test
  void listedNfdKeyDoesNotDeleteTheNfcObjectThatLooksTheSame() {
    String folder = P + "projects/pu/documents/u2/";
    PlanOutcome row = plans.get(folder + "state.json");
    assertThat(row.action()).isEqualTo("delete_record");
    assertThat(row.deletes()).containsExactly(folder + "state.json");
    assertThat(row.missingKeys()).isEqualTo(1);
    assertStays(folder + CAFE_NFC + ".pdf");
  }

  @Test
  void recordWithUnicodeIdsIsClassifiedAndDeleted() {
    String folder = P + "projects/pu/documents/" + CHINESE + "-" + CAFE_NFC + "-" + EMOJI + "/";
    assertThat(plans.get(folder + "state.json").deletes()).containsExactly(folder + "plan.pdf", folder + "state.json");
    String agent = P + "organization/agents/" + AGENT_NFC + "-" + EMOJI;
    assertThat(plans.get(agent + ".state.json").deletes()).containsExactly(agent + ".json", agent + ".state.json");
    assertThat(after).doesNotContainKeys(folder + "plan.pdf", folder + "state.json", agent + ".json",
        agent + ".state.json");
  }

  @Test
  void nfdAgentListingTheNfcAgentsFileIsRefused() {
    String nfcAgentFile = P + "organization/agents/" + AGENT_NFC + ".json";
    assertRefused("organization/agents/" + AGENT_NFD + ".state.json", nfcAgentFile,
        AGENT_NFD + ".state.json may list only its sibling " + P + "organization/agents/" + AGENT_NFD + ".json");
    assertStays(nfcAgentFile, P + "organization/agents/" + AGENT_NFC + ".state.json");
  }

  // ---- the archive ----

  /** Each bad document sits in the folder of a record with a file that must stay; most say delete: true. */
  private void seedBadDocuments() {
    badDocument("not-json", "delete: true\nfiles:\n  - " + P + "projects/p1/documents/not-json/doc.pdf\n");
    badDocument("empty", "");
    badDocument("ten-mb", documentOfSize("ten-mb", 10 * 1000 * 1000));
    badDocument("one-over", documentOfSize("one-over", MAX_STATE_BYTES + 1));
    badDocument("at-limit", documentOfSize("at-limit", MAX_STATE_BYTES));
    badDocument("deep", "{\"delete\": true, \"files\": [\"" + P + "projects/p1/documents/deep/doc.pdf\"], \"extra\": "
        + "[".repeat(100_000) + "]".repeat(100_000) + "}");
    badDocument("delete-yes", "{\"delete\": \"yes\", \"files\": [\"" + P + "projects/p1/documents/delete-yes/doc.pdf\"]}");
    badDocument("files-a", "{\"delete\": true, \"files\": \"a\"}");
    badDocument("expires-5", "{\"delete\": false, \"expires_at\": 5, \"files\": [\"" + P
        + "projects/p1/documents/expires-5/doc.pdf\"]}");
    badDocument("delete-twice", "{\"delete\": false, \"delete\": true, \"files\": [\"" + P
        + "projects/p1/documents/delete-twice/doc.pdf\"]}");
  }

  private void badDocument(String record, String content) {
    archive.put("projects/p1/documents/" + record + "/doc.pdf", "pdf");
    archive.put("projects/p1/documents/" + record + "/state.json", content);
  }

  /** A valid document that says delete: true and lists its doc.pdf, padded to exactly {@code size} bytes. */
  private static String documentOfSize(String record, int size) {
    String head = "{\"delete\": true, \"files\": [\"" + P + "projects/p1/documents/" + record + "/doc.pdf\"], \"padding\": \"";
    String tail = "\"}";
    return head + "x".repeat(size - head.length() - tail.length()) + tail;
  }

  /** Each refused record says delete: true and lists its own minutes.pdf and one bad key. */
  private void seedBadListedKeys() {
    refusedMeeting("dot-dot", P + "projects/p1/meetings/dot-dot/../victim/minutes.pdf");
    archive.put("projects/p1/meetings/victim/minutes.pdf", "pdf");
    archive.put("projects/p1/meetings/victim/state.json",
        archive.state(false, null, List.of("projects/p1/meetings/victim/minutes.pdf"), List.of()));
    refusedMeeting("double-slash", P + "projects/p1/meetings/double-slash//minutes.pdf");
    refusedMeeting("leading-slash", "/" + P + "projects/p1/meetings/leading-slash/minutes.pdf");
    refusedMeeting("s3-url", "s3://" + BUCKET + "/" + P + "projects/p1/meetings/s3-url/minutes.pdf");
    refusedMeeting("arn", "arn:aws:s3:::" + OTHER_BUCKET + "/" + P + "projects/p1/meetings/arn/minutes.pdf");
    refusedMeeting("other-url",
        "https://" + OTHER_BUCKET + ".s3.amazonaws.com/" + P + "projects/p1/meetings/other-url/minutes.pdf");
    refusedMeeting("outside", "bad-copy/projects/p1/meetings/outside/minutes.pdf");
    refusedMeeting("exporter", P + "_cogram/manifest.json");

    for (String project : List.of("p2", "p3")) {
      archive.put("projects/" + project + "/project.json", "{}");
      archive.put("projects/" + project + "/meetings/live/minutes.pdf", "pdf");
      archive.put("projects/" + project + "/meetings/live/state.json", archive.state(false, null,
          List.of("projects/" + project + "/meetings/live/minutes.pdf"), List.of()));
    }
    archive.put("projects/p2/state.json", archive.state(true, null,
        List.of("projects/p2/project.json", "projects/p2/meetings/live/minutes.pdf"), List.of()));
    archive.put("projects/p3/state.json", archive.state(true, null,
        List.of("projects/p3/project.json", "projects/p3/meetings/live/state.json"), List.of()));
  }

  private void refusedMeeting(String record, String badKey) {
    String folder = P + "projects/p1/meetings/" + record + "/";
    archive.put("projects/p1/meetings/" + record + "/minutes.pdf", "pdf");
    archive.put("projects/p1/meetings/" + record + "/state.json", "{\"delete\": true, \"files\": [\"" + folder
        + "minutes.pdf\", \"" + badKey + "\"]}");
  }

  /** 100,000 listed keys, of which only the first three exist: a big document, a small archive. */
  private void seedBigList() {
    String folder = P + "workflows/big/";
    List<String> files = new ArrayList<>(BIG_LIST);
    for (int i = 0; i < BIG_LIST; i++) {
      files.add(folder + String.format("f%05d", i));
    }
    for (int i = 0; i < BIG_LIST_EXISTING; i++) {
      archive.store().write(files.get(i), bytes("file"));
    }
    archive.put("workflows/big/unlisted.txt", "not listed");
    archive.put("workflows/big/state.json", "{\"delete\":true,\"files\":"
        + files.stream().map(file -> "\"" + file + "\"").collect(Collectors.joining(",", "[", "]")) + "}");
  }

  private void seedDuplicates() {
    archive.put("projects/p1/documents/dupes/a.pdf", "a");
    archive.put("projects/p1/documents/dupes/b.pdf", "b");
    archive.put("projects/p1/documents/dupes/state.json", archive.state(true, null, List.of(
        "projects/p1/documents/dupes/a.pdf", "projects/p1/documents/dupes/a.pdf", "projects/p1/documents/dupes/b.pdf",
        "projects/p1/documents/dupes/a.pdf"), List.of("projects/p1/documents/dupes/b.pdf")));
  }

  private void seedUnicode() {
    String u1 = "projects/pu/documents/u1/";
    List<String> u1Files = List.of(u1 + CAFE_NFC + ".pdf", u1 + CHINESE + ".txt", u1 + EMOJI + ".png",
        u1 + COMBINING + ".txt");
    u1Files.forEach(file -> archive.put(file, "u1"));
    archive.put(u1 + CAFE_NFD + ".pdf", "the NFD twin, not listed");
    archive.put(u1 + "state.json", archive.state(true, null, u1Files, List.of()));

    String u2 = "projects/pu/documents/u2/";
    archive.put(u2 + CAFE_NFC + ".pdf", "the NFC form, not listed");
    archive.put(u2 + "state.json", archive.state(true, null, List.of(u2 + CAFE_NFD + ".pdf"), List.of()));

    String u3 = "projects/pu/documents/" + CHINESE + "-" + CAFE_NFC + "-" + EMOJI + "/";
    archive.put(u3 + "plan.pdf", "pdf");
    archive.put(u3 + "state.json", archive.state(true, null, List.of(u3 + "plan.pdf"), List.of()));

    String agent = "organization/agents/" + AGENT_NFC + "-" + EMOJI;
    archive.put(agent + ".json", "{}");
    archive.put(agent + ".state.json", archive.state(true, null, List.of(agent + ".json"), List.of()));

    archive.put("organization/agents/" + AGENT_NFC + ".json", "{}");
    archive.put("organization/agents/" + AGENT_NFC + ".state.json",
        archive.state(false, null, List.of("organization/agents/" + AGENT_NFC + ".json"), List.of()));
    archive.put("organization/agents/" + AGENT_NFD + ".state.json",
        archive.state(true, null, List.of("organization/agents/" + AGENT_NFC + ".json"), List.of()));
  }

  /**
   * Issue 12's three inputs and their classes: timestamps beyond what a table holds, lone surrogates
   * (with the keys a "repair" would make of them, which must stay), keys XML cannot carry or carries
   * altered (due records that share their DeleteObjects request with the other records of the run).
   */
  private void seedValuesNoTableOrRequestCanCarry() {
    String documents = P + "projects/p1/documents/";
    badDocument("expires-far", "{\"delete\": false, \"expires_at\": \"+999999999-12-31T23:59:59Z\", \"files\": [\""
        + documents + "expires-far/doc.pdf\"]}");
    badDocument("expires-zero", "{\"delete\": true, \"expires_at\": \"0001-01-01T00:00:00Z\", \"files\": [\""
        + documents + "expires-zero/doc.pdf\"]}");
    badDocument("deleted-at-negative", "{\"delete\": true, \"deleted_at\": \"-000100-01-01T00:00:00Z\", \"files\": [\""
        + documents + "deleted-at-negative/doc.pdf\"]}");
    archive.put("projects/p1/documents/surrogate-live/a?b.pdf", "what a lone surrogate becomes in UTF-8 encoders");
    archive.put("projects/p1/documents/surrogate-live/a\ufffdb.pdf", "what it becomes in others");
    badDocument("surrogate-live", "{\"delete\": false, \"files\": [\"" + documents + "surrogate-live/doc.pdf\"],"
        + " \"delete_files\": [\"" + documents + "surrogate-live/a\\ud800b.pdf\"]}");
    archive.put("projects/p1/documents/surrogate-due/b?.pdf", "a repair");
    badDocument("surrogate-due", "{\"delete\": true, \"files\": [\"" + documents + "surrogate-due/doc.pdf\", \""
        + documents + "surrogate-due/b\\udc00.pdf\"]}");

    String control = "projects/p1/meetings/xml-control/";
    archive.put(control + "minutes.pdf", "pdf");
    archive.put(control + "a\u0001b.pdf", "a key XML 1.0 cannot carry");
    archive.put(control + "state.json",
        archive.state(true, null, List.of(control + "minutes.pdf", control + "a\u0001b.pdf"), List.of()));
    String cr = "projects/p1/meetings/xml-cr/";
    archive.put(cr + "cr\r.pdf", "a key XML parsers read as cr\\n");
    archive.put(cr + "crlf\r\n.pdf", "a key XML parsers read as crlf\\n");
    archive.put(cr + "state.json", archive.state(true, null, List.of(cr + "cr\r.pdf", cr + "crlf\r\n.pdf"), List.of()));
    String twins = "projects/p1/meetings/xml-cr-twins/";
    archive.put(twins + "cr\n.pdf", "twin");
    archive.put(twins + "crlf\n.pdf", "twin");
    archive.put(twins + "state.json",
        archive.state(false, null, List.of(twins + "cr\n.pdf", twins + "crlf\n.pdf"), List.of()));
  }

  private Set<String> expectedDeletes() {
    Set<String> keys = new LinkedHashSet<>();
    keys.add(P + "projects/p1/documents/at-limit/doc.pdf");
    keys.add(P + "projects/p1/documents/at-limit/state.json");
    for (int i = 0; i < BIG_LIST_EXISTING; i++) {
      keys.add(P + "workflows/big/" + String.format("f%05d", i));
    }
    keys.add(P + "workflows/big/state.json");
    keys.add(P + "projects/p1/documents/dupes/a.pdf");
    keys.add(P + "projects/p1/documents/dupes/b.pdf");
    keys.add(P + "projects/p1/documents/dupes/state.json");
    String u1 = P + "projects/pu/documents/u1/";
    keys.addAll(List.of(u1 + CAFE_NFC + ".pdf", u1 + CHINESE + ".txt", u1 + EMOJI + ".png", u1 + COMBINING + ".txt",
        u1 + "state.json"));
    keys.add(P + "projects/pu/documents/u2/state.json");
    String u3 = P + "projects/pu/documents/" + CHINESE + "-" + CAFE_NFC + "-" + EMOJI + "/";
    keys.addAll(List.of(u3 + "plan.pdf", u3 + "state.json"));
    String agent = P + "organization/agents/" + AGENT_NFC + "-" + EMOJI;
    keys.addAll(List.of(agent + ".json", agent + ".state.json"));
    String control = P + "projects/p1/meetings/xml-control/";
    keys.addAll(List.of(control + "minutes.pdf", control + "a\u0001b.pdf", control + "state.json"));
    String cr = P + "projects/p1/meetings/xml-cr/";
    keys.addAll(List.of(cr + "cr\r.pdf", cr + "crlf\r\n.pdf", cr + "state.json"));
    return keys;
  }

  // ---- assertions ----

  private void assertBadState(String relativeStateKey, String problem) {
    String key = P + relativeStateKey;
    String message = "Invalid state file " + key + ": " + problem;
    assertThat(stateFiles.get(key).status()).isEqualTo("bad_state");
    assertThat(stateFiles.get(key).message()).isEqualTo(message);
    PlanOutcome row = plans.get(key);
    assertThat(row.action()).isEqualTo("bad_state");
    assertThat(row.reason()).isEqualTo(message);
    assertThat(row.deletes()).isEmpty();
    assertThat(plan.logLines()).contains("kept " + LineText.escape(key) + ": " + LineText.escape(message));
    assertThat(executions).doesNotContainKey(key);
    assertStays(key, Keys.folder(key) + "doc.pdf");
  }

  private void assertRefused(String relativeStateKey, String badKey, String rule) {
    String key = P + relativeStateKey;
    String reason = "refused to delete " + badKey + ": " + rule;
    assertThat(stateFiles.get(key).status()).isEqualTo("read");
    PlanOutcome row = plans.get(key);
    assertThat(row.action()).isEqualTo("kept_refused");
    assertThat(row.reason()).isEqualTo(reason);
    assertThat(row.deletes()).isEmpty();
    assertThat(plan.logLines()).contains("kept " + LineText.escape(key) + ": " + LineText.escape(reason));
    assertThat(executions).doesNotContainKey(key);
    assertStays(recordKeys(key).toArray(String[]::new));
  }

  /** The seeded keys of a record: its folder's keys, or its state file and {@code <id>.json}. */
  private List<String> recordKeys(String stateKey) {
    List<String> keys = new ArrayList<>();
    if (Keys.name(stateKey).equals("state.json")) {
      before.keySet().stream().filter(key -> key.startsWith(Keys.folder(stateKey))).forEach(keys::add);
    } else {
      keys.add(stateKey);
      String sibling = stateKey.substring(0, stateKey.length() - ".state.json".length()) + ".json";
      if (before.containsKey(sibling)) {
        keys.add(sibling);
      }
    }
    return keys;
  }

  /** Each key existed before and is still there after execution, the same version. */
  private void assertStays(String... keys) {
    for (String key : keys) {
      assertThat(before).as("seeded").containsKey(key);
      assertThat(after).as("after execution").containsEntry(key, before.get(key));
    }
  }

  // ---- plumbing ----

  private RunOptions options(Map<String, String> extra) {
    return TestOptions.of(server.endpoint(), BUCKET, P, warehouse).with("--log-lines", "all")
        .with("--max-state-bytes", Integer.toString(MAX_STATE_BYTES)).with(extra).options();
  }

  private void readTables() {
    SparkSession spark = SharedSpark.session();
    for (Row row : TableReader.of(spark, plan.tables()).deletionPlan(plan.runId())
        .selectExpr("state_file_key", "action", "reason", "transform(deletes, d -> d.key)", "missing_keys")
        .collectAsList()) {
      plans.put(row.getString(0), new PlanOutcome(row.getString(1), row.getString(2), row.getList(3), row.getInt(4)));
    }
    for (Row row : TableReader.of(spark, plan.tables()).stateFiles(plan.runId())
        .selectExpr("key", "status", "message", "length(raw_json)", "size(files)")
        .collectAsList()) {
      stateFiles.put(row.getString(0), new StateFileOutcome(row.getString(1), row.getString(2),
          row.isNullAt(3) ? null : row.getInt(3), row.isNullAt(4) || row.getInt(4) < 0 ? null : row.getInt(4)));
    }
    for (Row row : TableReader.of(spark, execution.tables()).executions()
        .filter("attempt_id = '" + execution.attemptId() + "'").select("state_file_key", "outcome").collectAsList()) {
      executions.put(row.getString(0), row.getString(1));
    }
  }

  private static Map<String, StoredObject> snapshot(ObjectStore store) {
    Map<String, StoredObject> objects = new TreeMap<>();
    store.listAll("", object -> objects.put(object.key(), object));
    return objects;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
