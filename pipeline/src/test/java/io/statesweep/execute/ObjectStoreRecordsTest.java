package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.Layout;
import io.statesweep.local.LocalS3Server;
import io.statesweep.plan.Action;
import io.statesweep.plan.DeleteRole;
import io.statesweep.plan.PlannedDelete;
import io.statesweep.plan.Planner;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.state.StateParser;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Records executed against a real S3-protocol server, through {@link ObjectStoreRecords}.
 *
 * <p>A DeleteObject or a conditional GET answered 404 NoSuchBucket is an error, never a deletion or a record already
 * deleted: the record fails and keeps its file and state file (as in {@code NotFoundAnswersTest}).
 */
@ExtendWith(S3ServerExtension.class)
class ObjectStoreRecordsTest {
  private static final Planner PLANNER = new Planner(Layout.builtIn("cogram").classifier(ExportPrefix.of("cogram/")),
      Duration.ZERO);

  /**
   * A 404 NoSuchBucket to a DeleteObject (the one request of a key XML cannot carry) or to the state file's
   * conditional GET says nothing of the key: the record fails, naming the code, and keeps every key, its state
   * file included, for the next run. Neither answer may count as a deletion or as a record already deleted.
   */
  @Test
  void aRecordWhoseRequestsAreAnsweredNoSuchBucketFailsAndKeepsItsStateFile(LocalS3Server server) throws Exception {
    String bucket = server.createBucket("records-no-bucket");
    ObjectStore direct = S3ObjectStore.open(server.s3Settings(), bucket);
    String folder = "cogram/projects/p1/documents/d1/";
    String odd = folder + "scan\u0001.pdf";
    direct.write(odd, "scan".getBytes(StandardCharsets.UTF_8));
    direct.write(folder + "state.json", ("{\"delete\": true, \"files\": [\"" + folder + "scan\\u0001.pdf\"]}")
        .getBytes(StandardCharsets.UTF_8));
    PlannedRecord record = new PlannedRecord(Action.DELETE_RECORD, direct.listedObject(folder + "state.json"),
        List.of(new PlannedDelete(direct.listedObject(odd), DeleteRole.FILE),
            new PlannedDelete(direct.listedObject(folder + "state.json"), DeleteRole.STATE_FILE)));

    for (String method : List.of("DELETE", "GET")) {
      ExecutionOutcome outcome;
      try (FaultProxy proxy = new FaultProxy(server.endpoint())) {
        proxy.plan(request -> request.method().equals(method) && !request.isList() ? FaultProxy.Fault.NO_SUCH_BUCKET
            : null);
        ObjectStore store = S3ObjectStore.open(server.s3Settings().withEndpoint(proxy.endpoint(), true),
            bucket);
        try (RecordExecutor executor = new RecordExecutor(new ObjectStoreRecords(store, 1 << 20), PLANNER,
            new StateParser(List.of()), 1000, ConditionalDeletes.ON, DeleteThrottle.none(), ExecutionHook.NONE,
            Clock.systemUTC())) {
          outcome = executor.execute(List.of(record)).get(0);
        }
        assertThat(proxy.injected()).as(method).containsKey(FaultProxy.Fault.NO_SUCH_BUCKET);
      }

      assertThat(outcome.outcome()).as(method + ": " + outcome.message()).isEqualTo(Outcome.FAILED);
      assertThat(outcome.deletedKeys()).as(method).isEmpty();
      assertThat(outcome.failures()).as(method).extracting(KeyFailure::code).containsExactly("NoSuchBucket");
      assertThat(direct.read(odd, 100)).as(method + ": the file stays").isNotNull();
      assertThat(direct.read(folder + "state.json", 1024)).as(method + ": the state file stays").isNotNull();
    }
  }

  @Test
  void listsOnAfterAFolderFromAStartAfterBeyondEveryKeyInIt(LocalS3Server server) {
    server.createBucket("records-list");
    ObjectStore store = S3ObjectStore.open(server.s3Settings(), "records-list");
    for (String key : List.of("p/a/1.bin", "p/a/state.json", "p/a/\u00e9.bin", "p/a/\uFFFD.bin", "p/a0.bin",
        "p/b/x.bin", "q/y.bin")) {
      store.write(key, key.getBytes(StandardCharsets.UTF_8));
    }
    RecordStore records = new ObjectStoreRecords(store, 1 << 20);

    List<String> after = new ArrayList<>();
    for (Iterator<StoredObject> objects = records.list("p/", "p/a/\uDBFF\uDFFF"); objects.hasNext(); ) {
      after.add(objects.next().key());
    }
    List<String> whole = new ArrayList<>();
    records.list("p/", null).forEachRemaining(object -> whole.add(object.key()));

    // A store that orders keys by UTF-16 units (not S3's UTF-8 bytes) may still answer p/a/\uFFFD.bin:
    // OwnedFiles gives such a key to the skipped record.
    assertThat(after.stream().filter(key -> !key.startsWith("p/a/")).toList()).containsExactly("p/a0.bin", "p/b/x.bin");
    assertThat(after).doesNotContain("p/a/1.bin", "p/a/state.json", "p/a/\u00e9.bin");
    assertThat(whole).hasSize(6).startsWith("p/a/1.bin");
  }
}
