package io.statesweep.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.api.PlanResult;
import io.statesweep.config.RunOptions;
import io.statesweep.local.LocalS3Server;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import io.statesweep.testing.TableReader;
import io.statesweep.testing.TestArchive;
import io.statesweep.testing.TestOptions;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code --kind-grace-days}: each deletion_plan row says which grace it waited for and which rule gave it. */
@ExtendWith(S3ServerExtension.class)
class KindGracePlanTest {
  private static final String P = "cogram/";
  private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);
  private static final Instant THREE_DAYS_AGO = NOW.minus(Duration.ofDays(3));

  /** One plan row, as the table holds it. */
  private record Planned(String action, int graceDays, String graceRule, Instant dueAt) {}

  @Test
  void planRowsCarryTheGraceOfTheirKindOrTheGlobalOne(LocalS3Server server, @TempDir Path warehouse) {
    TestArchive archive = new TestArchive(server, "kind-grace", P);
    archive.put("projects/p1/project.json", "{}");
    archive.put("projects/p1/state.json", "{\"files\": [\"" + archive.key("projects/p1/project.json") + "\"]}");
    deleted(archive, "projects/p1/meetings/m1/", "state.json", "minutes.pdf", THREE_DAYS_AGO);
    deleted(archive, "projects/p1/emails/e1/", "state.json", "body.html", THREE_DAYS_AGO);
    deleted(archive, "projects/p1/documents/d1/", "state.json", "doc.pdf", NOW.minus(Duration.ofDays(1)));
    deleted(archive, "organization/agents/", "a1.state.json", "a1.json", THREE_DAYS_AGO);

    PlanResult result = new SparkPlanAction(SharedSpark.session(), options(server, warehouse).plan())
        .clock(Clock.fixed(NOW, ZoneOffset.UTC)).execute();

    assertThat(result.failure()).isNull();
    assertThat(planRows(result)).isEqualTo(Map.of(
        P + "projects/p1/state.json", new Planned("keep", 2, "global", null),
        P + "projects/p1/meetings/m1/state.json",
        new Planned("not_yet_due", 7, "kind meetings", THREE_DAYS_AGO.plus(Duration.ofDays(7))),
        P + "projects/p1/emails/e1/state.json", new Planned("delete_record", 0, "kind emails", THREE_DAYS_AGO),
        P + "projects/p1/documents/d1/state.json",
        new Planned("not_yet_due", 2, "global", NOW.minus(Duration.ofDays(1)).plus(Duration.ofDays(2))),
        P + "organization/agents/a1.state.json",
        new Planned("delete_record", 2, "global", THREE_DAYS_AGO.plus(Duration.ofDays(2)))));
    assertThat(reason(result, "projects/p1/meetings/m1/state.json"))
        .isEqualTo("not yet due: grace of 7 days ends at " + THREE_DAYS_AGO.plus(Duration.ofDays(7)));
    assertThat(result.summary().line()).contains(" records_deleted=2 child_keys_deleted=2 ");
    Row run = TableReader.of(result.tables()).runs(result.runId()).first();
    assertThat(run.<Integer>getAs("grace_days")).isEqualTo(2);
    assertThat(run.getJavaMap(run.fieldIndex("settings")))
        .containsEntry("sweep.grace-days.by-kind", "meetings=7,emails=0");
  }

  /** A record marked deleted at {@code markedAt} (its deleted_at field) with one file. */
  private static void deleted(TestArchive archive, String folder, String stateName, String file, Instant markedAt) {
    archive.put(folder + file, "bytes");
    archive.put(folder + stateName, "{\"delete\": true, \"deleted_at\": \"" + markedAt + "\", \"files\": [\""
        + archive.key(folder + file) + "\"]}");
  }

  private static RunOptions options(LocalS3Server server, Path warehouse) {
    return TestOptions.of(server.endpoint(), "kind-grace", P, warehouse).with("--grace-days", "2")
        .with("--kind-grace-days", "meetings=7,emails=0").options();
  }

  private static Map<String, Planned> planRows(PlanResult result) {
    SparkSession spark = SharedSpark.session();
    return TableReader.of(spark, result.tables()).deletionPlan(result.runId())
        .select("state_file_key", "action", "grace_days", "grace_rule", "due_at").collectAsList().stream()
        .collect(Collectors.toMap(row -> row.getString(0), row -> new Planned(row.getString(1), row.getInt(2),
            row.getString(3), row.isNullAt(4) ? null : row.<Timestamp>getAs(4).toInstant()),
            (a, b) -> a, TreeMap::new));
  }

  private static String reason(PlanResult result, String relativeStateKey) {
    return TableReader.of(result.tables()).deletionPlan()
        .filter("run_id = '" + result.runId() + "' and state_file_key = '" + P + relativeStateKey + "'")
        .select("reason").first().getString(0);
  }
}
