package io.statesweep.synthetic;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.local.LocalS3Server;
import io.statesweep.plan.StoredObject;
import io.statesweep.s3.DeleteResult;
import io.statesweep.s3.DeleteTarget;
import io.statesweep.s3.FolderListing;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.S3Clients;
import io.statesweep.s3.S3Settings;
import io.statesweep.s3.StateCheck;
import io.statesweep.spark.PlanResult;
import io.statesweep.spark.SparkPlanAction;
import io.statesweep.testing.S3ServerExtension;
import io.statesweep.testing.SharedSpark;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The synthetic S3 endpoint answers as a real S3-protocol server does, for what statesweep uses. */
@ExtendWith(S3ServerExtension.class)
class SyntheticS3ServerTest {
  private static final SyntheticArchive SMALL = new SyntheticArchive("cogram/", 60, 3, 7, false, 4);

  private static ObjectStore store(String endpoint, String bucket) {
    return new ObjectStore(S3Clients.shared(S3Settings.defaults().withEndpoint(endpoint, true)), bucket);
  }

  @Test
  void listsEveryGeneratedKeyInOrderAcrossPages() throws Exception {
    SyntheticArchive archive = new SyntheticArchive("cogram/", 700, 2, 100, false, 10);
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", archive, Duration.ZERO, 0)) {
      List<String> keys = new ArrayList<>();
      store(server.endpoint(), "synthetic").listAll("cogram/", object -> keys.add(object.key()));

      assertThat(keys).hasSize(2_100).isSorted();
      assertThat(keys.get(0)).isEqualTo("cogram/projects/p000000/documents/d000000000/f00.bin");
      assertThat(keys.get(2_099)).isEqualTo("cogram/projects/p000006/documents/d000000699/state.json");
      assertThat(server.requestCounts().get("LIST")).isEqualTo(3);
    }
  }

  @Test
  void delimiterListingGivesFoldersAndPrefixesNarrowTheListing() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)) {
      ObjectStore store = store(server.endpoint(), "synthetic");
      FolderListing projects = store.listFolder("cogram/projects/");
      List<String> oneRecord = new ArrayList<>();
      store.listAll("cogram/projects/p000001/documents/d000000008/", object -> oneRecord.add(object.key()));

      assertThat(projects.folders()).hasSize(9).first().isEqualTo("cogram/projects/p000000/");
      assertThat(projects.objects()).isEmpty();
      assertThat(store.listFolder("cogram/").folders()).containsExactly("cogram/projects/");
      assertThat(oneRecord).containsExactly("cogram/projects/p000001/documents/d000000008/f00.bin",
          "cogram/projects/p000001/documents/d000000008/f01.bin",
          "cogram/projects/p000001/documents/d000000008/f02.bin",
          "cogram/projects/p000001/documents/d000000008/state.json");
    }
  }

  @Test
  void conditionalReadsDeletesAndWritesBehaveLikeS3() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)) {
      ObjectStore store = store(server.endpoint(), "synthetic");
      String key = SMALL.key(4, 0);
      StoredObject object = store.head(key);

      assertThat(store.checkUnchanged(key, object.etag())).isEqualTo(StateCheck.UNCHANGED);
      assertThat(store.checkUnchanged(key, "0123")).isEqualTo(StateCheck.CHANGED);
      DeleteResult refused = store.delete(List.of(new DeleteTarget(key, "0123")));
      assertThat(refused.errors().get(key).code()).isEqualTo("PreconditionFailed");
      DeleteResult done = store.delete(List.of(new DeleteTarget(key, object.etag())));
      assertThat(done.deleted()).containsExactly(key);
      assertThat(store.head(key)).isNull();
      assertThat(store.checkUnchanged(key, object.etag())).isEqualTo(StateCheck.GONE);

      String lock = "cogram.statesweep/lock";
      var client = S3Clients.shared(S3Settings.defaults().withEndpoint(server.endpoint(), true));
      client.putObject(b -> b.bucket("synthetic").key(lock).ifNoneMatch("*"),
          software.amazon.awssdk.core.sync.RequestBody.fromString("one"));
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.putObject(
              b -> b.bucket("synthetic").key(lock).ifNoneMatch("*"),
              software.amazon.awssdk.core.sync.RequestBody.fromString("two")))
          .isInstanceOf(S3Exception.class).extracting(e -> ((S3Exception) e).statusCode()).isEqualTo(412);
      List<String> keys = new ArrayList<>();
      store.listAll("", o -> keys.add(o.key()));
      assertThat(keys).contains(lock).doesNotContain(key).hasSize(240);
    }
  }

  @Test
  void answersSlowDownAboveItsPerPrefixRate() throws Exception {
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 5)) {
      HttpClient http = HttpClient.newHttpClient();
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        statuses.add(http.send(HttpRequest.newBuilder(URI.create(server.endpoint() + "/synthetic/" + SMALL.key(1, 0)))
            .build(), HttpResponse.BodyHandlers.ofString()).statusCode());
      }
      assertThat(statuses).contains(200, 503);
      assertThat(server.requestCounts().get("SLOWDOWN")).isPositive();
    }
  }

  @Test
  void theSameArchiveGivesTheSameListingAndPlanAsS3Proxy(LocalS3Server s3proxy, @TempDir Path warehouse)
      throws Exception {
    s3proxy.createBucket("synthetic-copy");
    ObjectStore copy = store(s3proxy.endpoint(), "synthetic-copy");
    try (SyntheticS3Server server = new SyntheticS3Server("synthetic", SMALL, Duration.ZERO, 0)) {
      ObjectStore synthetic = store(server.endpoint(), "synthetic");
      Map<String, StoredObject> generated = new TreeMap<>();
      synthetic.listAll("", object -> generated.put(object.key(), object));
      for (String key : generated.keySet()) {
        copy.write(key, synthetic.read(key, 1 << 20).bytes());
      }
      Map<String, StoredObject> copied = new TreeMap<>();
      copy.listAll("", object -> copied.put(object.key(), object));

      assertThat(copied.keySet()).isEqualTo(generated.keySet());
      for (String key : generated.keySet()) {
        assertThat(copied.get(key).size()).as(key).isEqualTo(generated.get(key).size());
      }
      assertThat(plan(server.endpoint(), "synthetic", warehouse.resolve("a")))
          .isEqualTo(plan(s3proxy.endpoint(), "synthetic-copy", warehouse.resolve("b")))
          .containsValue("delete_record/4").containsValue("keep/0").hasSize(60);
    }
  }

  private static Map<String, String> plan(String endpoint, String bucket, Path warehouse) {
    Map<String, String> flags = new HashMap<>();
    flags.put("--bucket", bucket);
    flags.put("--prefix", "cogram/");
    flags.put("--endpoint", endpoint);
    flags.put("--warehouse", warehouse.toString());
    flags.put("--log-lines", "0");
    PlanResult result = new SparkPlanAction(SharedSpark.session(), RunOptions.from(Settings.resolve(flags, Map.of(),
        null))).execute();
    assertThat(result.failure()).isNull();
    Map<String, String> actions = new TreeMap<>();
    for (Row row : SharedSpark.session().read().format("delta").load(result.tables().deletionPlan())
        .select("state_file_key", "action", "keys_to_delete").collectAsList()) {
      actions.put(row.getString(0), row.getString(1) + "/" + row.getLong(2));
    }
    return actions;
  }

}
