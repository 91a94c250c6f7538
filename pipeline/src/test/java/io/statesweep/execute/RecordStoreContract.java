package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.statesweep.store.ConditionalRead;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ListingPage;
import io.statesweep.store.StateCheck;
import io.statesweep.store.StoredObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The part of the store contract ({@code io.statesweep.store.ObjectStoreContract}) that execution sees through
 * {@link RecordStore}, run against the fake that the executor's tests use and against {@link ObjectStoreRecords}
 * on the in-memory store that the full contract vouches for: so that the fake answers as S3 does where execution
 * relies on it.
 */
abstract class RecordStoreContract {
  /** The store under test, empty when a test starts. */
  protected abstract RecordStore records();

  /** Writes {@code key} holding {@code json}; returns the version as a listing shows it. */
  protected abstract StoredObject put(String key, String json);

  /** Writes {@code key} again with other content (a new ETag); returns the new version. */
  protected abstract StoredObject rewrite(String key, String json);

  /** Deletes {@code key} behind the store's back, as another writer would. */
  protected abstract void remove(String key);

  @Test
  void aStateReadTellsAnUnchangedAChangedAndAGoneStateFile() {
    StoredObject planned = put("rec/state.json", "{\"v\": 1}");

    ConditionalRead unchanged = records().readState(planned.key(), planned.etag());
    StateCheck before = records().checkUnchanged(planned.key(), planned.etag());
    StoredObject rewritten = rewrite(planned.key(), "{\"v\": 2}");
    ConditionalRead changed = records().readState(planned.key(), planned.etag());
    StateCheck afterRewrite = records().checkUnchanged(planned.key(), planned.etag());
    remove(planned.key());
    ConditionalRead gone = records().readState(planned.key(), rewritten.etag());
    StateCheck afterRemove = records().checkUnchanged(planned.key(), planned.etag());

    assertThat(unchanged.check()).isEqualTo(StateCheck.UNCHANGED);
    assertThat(unchanged.bytes()).asString(StandardCharsets.UTF_8).isEqualTo("{\"v\": 1}");
    assertThat(unchanged.truncated()).isFalse();
    assertThat(before).isEqualTo(StateCheck.UNCHANGED);
    assertThat(rewritten.etag()).isNotEqualTo(planned.etag());
    assertThat(changed.check()).isEqualTo(StateCheck.CHANGED);
    assertThat(changed.bytes()).isEmpty();
    assertThat(afterRewrite).isEqualTo(StateCheck.CHANGED);
    assertThat(gone.check()).isEqualTo(StateCheck.GONE);
    assertThat(afterRemove).isEqualTo(StateCheck.GONE);
  }

  /** A folder, or a record's own prefix ({@code <id>.}), in key order, from the first key after a given one. */
  @Test
  void listsInKeyOrderAfterAKey() {
    for (String key : List.of("rec/c.json", "rec/a.json", "rec/b.1.pdf", "rec/b.2.pdf", "recx/d.json")) {
      put(key, "{}");
    }

    assertThat(keys("rec/", null)).containsExactly("rec/a.json", "rec/b.1.pdf", "rec/b.2.pdf", "rec/c.json");
    assertThat(keys("rec/", "rec/b.1.pdf")).containsExactly("rec/b.2.pdf", "rec/c.json");
    assertThat(keys("rec/b.", null)).containsExactly("rec/b.1.pdf", "rec/b.2.pdf");
    assertThat(keys("none/", null)).isEmpty();
  }

  @Test
  void pagesAfterAKeyAndThenByTheContinuationToken() {
    List<String> keys = IntStream.range(0, 1_200).mapToObj(i -> String.format("many/%04d.txt", i)).toList();
    keys.forEach(key -> put(key, "{}"));

    ListingPage first = records().listPage("many/", "many/0099.txt", null);
    assumeTrue(first != null, () -> getClass().getSimpleName() + " answers no pages: it lists each record alone");
    ListingPage second = records().listPage("many/", "many/0099.txt", first.nextToken());

    assertThat(first.truncated()).isTrue();
    assertThat(first.nextToken()).isNotEmpty();
    assertThat(first.objects()).extracting(StoredObject::key).containsExactlyElementsOf(keys.subList(100, 1_100));
    assertThat(second.truncated()).isFalse();
    assertThat(second.nextToken()).isNull();
    assertThat(second.objects()).extracting(StoredObject::key).containsExactlyElementsOf(keys.subList(1_100, 1_200));
  }

  @Test
  void aListedObjectIsTheVersionTheListingShows() {
    put("listed/doc.json", "{\"a\": 1}");
    put("listed/doc.json.old", "{}");
    List<StoredObject> listing = new ArrayList<>();
    records().list("listed/", null).forEachRemaining(listing::add);

    StoredObject listed = records().listedObject("listed/doc.json");

    assertThat(listed).isEqualTo(listing.get(0));
    assertThat(listed.lastModified()).isEqualTo(listing.get(0).lastModified());
    assertThat(records().listedObject("listed/doc")).isNull();
    assertThat(records().listedObject("listed/none.json")).isNull();
  }

  @Test
  void aDeleteDeletesOnlyWhatStillHasItsETagAndCountsAMissingKeyAsDeleted() {
    StoredObject plain = put("delete/plain.pdf", "{}");
    StoredObject stale = put("delete/changed.pdf", "{}");
    rewrite(stale.key(), "{\"changed\": true}");

    DeleteResult result = records().delete(List.of(new DeleteTarget(plain.key(), plain.etag()),
        new DeleteTarget(stale.key(), stale.etag()), new DeleteTarget("delete/never-existed.pdf", null)));

    assertThat(result.deleted()).containsExactlyInAnyOrder(plain.key(), "delete/never-existed.pdf");
    assertThat(result.errors()).containsOnlyKeys(stale.key());
    assertThat(result.errors().get(stale.key()).isPreconditionFailed()).isTrue();
    assertThat(keys("delete/", null)).containsExactly(stale.key());
  }

  private List<String> keys(String prefix, String startAfter) {
    List<String> keys = new ArrayList<>();
    records().list(prefix, startAfter).forEachRemaining(object -> keys.add(object.key()));
    return keys;
  }
}
