package io.statesweep.execute;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Keys;
import io.statesweep.layout.Layout;
import io.statesweep.layout.OwnerCandidate;
import io.statesweep.store.StoredObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A folder record's files found without holding its nested records' keys: the same owned files, owners
 * and existence answers as listing the whole folder and holding it, over random archives.
 *
 * <p>It compares the page-at-a-time listing of a folder record with the whole-folder listing, and checks that nested
 * records' keys are neither held nor all listed.
 */
class OwnedFilesTest {
  private static final KeyClassifier CLASSIFIER = Layout.builtIn("cogram").classifier(ExportPrefix.of("cogram/"));
  private static final Instant WRITTEN = Instant.parse("2025-01-10T03:00:00Z");
  /**
   * Cogram's places and one whose records sort after their folder's {@code state.json}: a key there
   * waits on a state file that the listing shows only after it has left the folder that owns it.
   */
  private static final KeyClassifier VERSIONS = Layout.parse("""
      {"name": "versions", "exporter_folder": "_cogram", "kinds": ["meetings", "chat", "documents"],
       "places": [
         {"path": "projects/{project}/state.json", "record_type": "project"},
         {"path": "projects/{project}/{kind}/{record}/state.json", "record_type": "project_record"},
         {"path": "projects/{project}/chat/{chat}/messages/{message}.state.json", "record_type": "chat_message"},
         {"path": "projects/{project}/{kind}/{record}/versions/{version}.state.json", "record_type": "version"}
       ]}""", "test").classifier(ExportPrefix.of("cogram/"));
  private static final String PROJECT = "cogram/projects/p1/";
  private static final String PROJECT_STATE = PROJECT + "state.json";

  private static final String[] NAMES = {"a.txt", "brief.pdf", "z.bin", "state.json.bak", "state.jsonx", "st",
      "tmp/x.bin", "files/f.bin", "é.txt", "\uD83D\uDCCE.pdf", "\uFFFD.bin", "x/y/z.bin", "q1.json", "q2.json",
      "q1.state.json", "q2.state.json", "messages/q3.json", "messages/q3.state.json", "state.json"};
  private static final String[] FOLDERS = {"", "meetings/m1/", "meetings/m2/", "meetings/m2/files/", "site_visits/v1/",
      "chat/c1/", "chat/c1/messages/", "chat/c2/messages/", "meetings/m1/versions/", "meetings/m2/versions/", "attachments/", "attachments/2024/",
      "attachments/2024/site/", "é/r/", "\uD83D\uDCCE/r/", "\uFFFD/r/", "documents/d1/", "documents/d1/sub/"};

  @Test
  void randomArchivesGetTheAnswersOfTheWholeListing() {
    int archives = Integer.getInteger("owned.archives", 400);
    for (int seed = 0; seed < archives; seed++) {
      Random random = new Random(seed);
      FakeRecordStore store = new FakeRecordStore();
      Set<String> keys = new LinkedHashSet<>();
      if (random.nextInt(10) > 0) {
        keys.add(PROJECT_STATE);
      }
      int count = 5 + random.nextInt(60);
      for (int i = 0; i < count; i++) {
        keys.add(PROJECT + FOLDERS[random.nextInt(FOLDERS.length)] + NAMES[random.nextInt(NAMES.length)]);
      }
      for (String folder : List.of("meetings/m1/", "meetings/m2/", "site_visits/v1/", "chat/c1/", "chat/c2/",
          "documents/d1/", "é/r/", "\uD83D\uDCCE/r/", "\uFFFD/r/")) {
        if (random.nextBoolean()) {
          keys.add(PROJECT + folder + "state.json");
        }
      }
      // A large nested record now and then, so that waiting keys go past small limits.
      if (random.nextBoolean()) {
        String big = PROJECT + List.of("meetings/m1/", "meetings/m2/", "chat/c1/", "chat/c2/").get(random.nextInt(4));
        for (int i = 0; i < 30; i++) {
          keys.add(big + "files/f" + i + ".bin");
        }
      }
      keys.forEach(key -> store.put(key, WRITTEN));
      Set<String> interest = new LinkedHashSet<>();
      for (String key : keys) {
        if (random.nextInt(3) == 0) {
          interest.add(key);
        }
      }
      for (int i = 0; i < 5; i++) {
        interest.add(PROJECT + FOLDERS[random.nextInt(FOLDERS.length)] + NAMES[random.nextInt(NAMES.length)]);
      }
      for (KeyClassifier classifier : List.of(CLASSIFIER, VERSIONS)) {
        assertSameAsWholeListing(store, classifier, interest, "seed " + seed + ", layout " + classifier.layout().name());
      }
    }
  }

  private static void assertSameAsWholeListing(FakeRecordStore store, KeyClassifier classifier, Set<String> interest,
      String archive) {
    Whole expected = wholeListing(store, classifier, PROJECT_STATE, PROJECT, interest);
    for (int limit : new int[] {1, 2, 5, OwnedFiles.PENDING_LIMIT}) {
      OwnedFiles owned = OwnedFiles.list(store, classifier, PROJECT_STATE, PROJECT, interest, limit);
      String where = archive + ", limit " + limit;
      assertThat(owned.stateFileListed()).as(where).isEqualTo(expected.stateFileListed);
      assertThat(owned.files()).as(where).isEqualTo(expected.stateFileListed ? expected.files : Map.of());
      assertThat(owned.otherOwners()).as(where).isEqualTo(expected.otherOwners);
      for (String key : interest) {
        if (key.startsWith(PROJECT)) {
          assertThat(owned.exists(key)).as(where + ": " + key).isEqualTo(expected.listedKeys.contains(key));
        }
      }
    }
  }

  @Test
  void nestedRecordsKeysAreNeitherHeldNorAllListed() {
    FakeRecordStore store = new FakeRecordStore();
    store.put(PROJECT_STATE, WRITTEN);
    List<String> own = List.of(PROJECT + "brief.pdf", PROJECT + "attachments/2024/site/photo.jpg",
        PROJECT + "attachments/a.pdf", PROJECT + "zz/deep/notes.txt");
    own.forEach(key -> store.put(key, WRITTEN));
    int nestedKeys = 0;
    for (int record = 0; record < 20; record++) {
      String folder = PROJECT + "documents/d" + record + "/";
      store.put(folder + "state.json", WRITTEN);
      nestedKeys++;
      for (int file = 0; file < 2000; file++) {
        store.put(folder + "files/f" + file + ".bin", WRITTEN);
        nestedKeys++;
      }
    }

    OwnedFiles owned = OwnedFiles.list(store, CLASSIFIER, PROJECT_STATE, PROJECT, own, OwnedFiles.PENDING_LIMIT);

    assertThat(owned.files().keySet()).containsExactlyInAnyOrderElementsOf(own);
    assertThat(owned.peakPending()).isLessThanOrEqualTo(OwnedFiles.PENDING_LIMIT + 1);
    // Each nested record: its first 1,001 keys wait, then its state file is looked up and the rest skipped.
    assertThat(nestedKeys).isEqualTo(40_020);
    assertThat(store.listedKeyCount()).isEqualTo(own.size() + 1 + 20 * (OwnedFiles.PENDING_LIMIT + 1));
    assertThat(store.listedKeys()).doesNotContain(PROJECT + "documents/d7/files/f1999.bin",
        PROJECT + "documents/d7/state.json");
    assertThat(store.lookedUpKeys()).hasSize(20).allMatch(key -> key.endsWith("/state.json"));
  }

  /** The whole folder listed and held, as execution did before: the reference. */
  private static Whole wholeListing(FakeRecordStore store, KeyClassifier classifier, String stateFileKey, String folder, Set<String> interest) {
    Whole whole = new Whole();
    List<StoredObject> listed = new ArrayList<>();
    Set<String> boundaries = new HashSet<>();
    for (Iterator<StoredObject> objects = store.list(folder, null); objects.hasNext(); ) {
      StoredObject object = objects.next();
      listed.add(object);
      whole.listedKeys.add(object.key());
      if (Keys.isStateFileName(object.key()) && classifier.isRecordBoundary(object.key())) {
        boundaries.add(object.key());
      }
    }
    whole.stateFileListed = boundaries.contains(stateFileKey);
    for (StoredObject object : listed) {
      if (boundaries.contains(object.key())) {
        continue;
      }
      OwnerCandidate closest = null;
      for (OwnerCandidate candidate : classifier.ownerCandidates(object.key())) {
        if (boundaries.contains(candidate.stateFileKey()) && (closest == null || candidate.depth() > closest.depth())) {
          closest = candidate;
        }
      }
      String owner = closest == null ? null : closest.stateFileKey();
      if (stateFileKey.equals(owner)) {
        whole.files.put(object.key(), object);
      } else if (owner != null && interest.contains(object.key())) {
        whole.otherOwners.put(object.key(), owner);
      }
    }
    return whole;
  }

  private static final class Whole {
    final Map<String, StoredObject> files = new TreeMap<>();
    final Map<String, String> otherOwners = new HashMap<>();
    final Set<String> listedKeys = new HashSet<>();
    boolean stateFileListed;
  }
}
