package io.statesweep.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.statesweep.layout.Classification;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.KeyClassifier;
import io.statesweep.layout.Keys;
import io.statesweep.layout.Layout;
import io.statesweep.local.SampleArchive.Manifest;
import io.statesweep.local.SampleArchive.SampleCase;
import io.statesweep.local.SampleArchive.SampleRecord;
import io.statesweep.plan.Action;
import io.statesweep.s3.S3Clients;
import io.statesweep.s3.S3ObjectStore;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoredObject;
import io.statesweep.testing.FaultProxy;
import io.statesweep.testing.S3ServerExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.S3Client;

@ExtendWith(S3ServerExtension.class)
class SampleArchiveTest {
  private static final String BUCKET = "sample-archive-test";
  private static final String PREFIX = "cogram/";
  private static final int RECORDS = 100;
  private static final long SEED = 7L;
  private static final Layout LAYOUT = Layout.builtIn("cogram");
  private static final KeyClassifier CLASSIFIER = LAYOUT.classifier(ExportPrefix.of(PREFIX));

  private static S3Client client;
  private static ObjectStore store;
  private static Instant now;
  private static Manifest manifest;
  /** When {@link SampleArchive#generate} returned. */
  private static Instant returned;
  private static Map<String, StoredObject> listing;

  @BeforeAll
  static void generate(LocalS3Server server) {
    server.createBucket(BUCKET);
    client = S3Clients.build(server.s3Settings());
    store = new S3ObjectStore(client, BUCKET);
    now = Instant.now();
    manifest = SampleArchive.generate(store, PREFIX, RECORDS, SEED, now);
    returned = Instant.now();
    listing = list(PREFIX);
  }

  @AfterAll
  static void closeClient() {
    client.close();
  }

  @Test
  void writesExactlyTheRecordsAskedFor() {
    assertThat(manifest.recordCount()).isEqualTo(RECORDS);
    assertThat(manifest.prefix()).isEqualTo(PREFIX);
    assertThat(manifest.now()).isEqualTo(now);
  }

  @Test
  void writesRecordsAtEveryPlaceOfTheLayoutAndOfEveryKind() throws Exception {
    Set<String> recordTypes = new TreeSet<>();
    Set<String> projectRecordKinds = new TreeSet<>();
    for (SampleRecord record : manifest.records().values()) {
      Classification classification = CLASSIFIER.classify(record.stateFileKey());
      assertThat(classification).as(record.stateFileKey()).isInstanceOf(Classification.StateFile.class);
      Classification.StateFile stateFile = (Classification.StateFile) classification;
      assertThat(stateFile.recordType()).as(record.stateFileKey()).isEqualTo(record.recordType());
      recordTypes.add(stateFile.recordType());
      if (stateFile.recordType().equals("project_record")) {
        projectRecordKinds.add(stateFile.kind());
      }
    }

    Set<String> layoutRecordTypes = new TreeSet<>();
    for (JsonNode place : new ObjectMapper().readTree(LAYOUT.json()).get("places")) {
      layoutRecordTypes.add(place.get("record_type").asText());
    }
    assertThat(layoutRecordTypes).hasSize(11);
    assertThat(recordTypes).isEqualTo(layoutRecordTypes);
    assertThat(projectRecordKinds).isEqualTo(new TreeSet<>(LAYOUT.kinds()));
  }

  @Test
  void buildsEveryCaseAtLeastOnce() {
    assertThat(manifest.countsByCase().keySet()).isEqualTo(EnumSet.allOf(SampleCase.class));
    assertThat(SampleArchive.minimumRecordCount()).isLessThanOrEqualTo(50);
  }

  @Test
  void writesTheExportersOwnFilesAndNeverPlansToDeleteThem() {
    assertThat(manifest.exporterKeys()).isNotEmpty().allSatisfy(key -> {
      assertThat(key).startsWith(PREFIX + "_cogram/");
      assertThat(listing).containsKey(key);
    });
    assertThat(manifest.expectedDeletes()).doesNotContainAnyElementsOf(manifest.exporterKeys());
    assertThat(manifest.expectedDeletes(Duration.ofDays(3))).doesNotContainAnyElementsOf(manifest.exporterKeys());
  }

  @Test
  void manifestCountsMatchAFullListing() {
    assertThat(listing).hasSize(manifest.objectCount());
    assertThat(listing.keySet()).containsAll(manifest.records().keySet());
    assertThat(listing.keySet()).containsAll(manifest.skippedKeys());
    assertThat(listing.keySet()).containsAll(manifest.expectedDeletes());
    assertThat(list("").keySet()).allSatisfy(key -> assertThat(key).startsWith(PREFIX));

    Set<String> stateNamed = listing.keySet().stream().filter(Keys::isStateFileName).collect(Collectors.toSet());
    Set<String> recordsAndSkipped = new HashSet<>(manifest.records().keySet());
    recordsAndSkipped.addAll(manifest.skippedKeys());
    assertThat(stateNamed).isEqualTo(recordsAndSkipped);
    assertThat(manifest.expectedActions()).hasSize(RECORDS);
    assertThat(manifest.countsByAction(Duration.ZERO).values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(RECORDS);
  }

  @Test
  void knowsWhichListedKeysExist() {
    for (SampleRecord record : manifest.records().values()) {
      Set<String> listed = new TreeSet<>(record.files());
      listed.addAll(record.deleteFiles());
      for (String key : listed) {
        assertThat(record.existingKeys().contains(key)).as(key).isEqualTo(listing.containsKey(key));
      }
    }
  }

  @Test
  void skipsStateNamedAttachmentsAndUnknownKindFolders() {
    assertThat(manifest.skippedKeys())
        .anyMatch(key -> key.contains("/attachments/") && key.endsWith("/state.json"))
        .anyMatch(key -> key.contains("/attachments/") && key.endsWith(".state.json") && !key.endsWith("/state.json"))
        .anyMatch(key -> key.startsWith(PREFIX + "projects/") && key.contains("/punch_lists/"))
        .anyMatch(key -> key.startsWith(PREFIX + "unassigned_project/punch_lists/"))
        .allSatisfy(key -> assertThat(CLASSIFIER.classify(key)).isInstanceOf(Classification.Skipped.class));
  }

  @Test
  void comingBackRecordsHaveFilesStrictlyNewerThanTheirStateFiles() {
    List<SampleRecord> comingBack = manifest.records().values().stream()
        .filter(record -> !record.newerKeys().isEmpty()).toList();

    assertThat(comingBack).extracting(SampleRecord::sampleCase)
        .contains(SampleCase.COMING_BACK, SampleCase.COMING_BACK_NEW_FILE)
        .allMatch(sampleCase -> sampleCase == SampleCase.COMING_BACK || sampleCase == SampleCase.COMING_BACK_NEW_FILE);
    for (SampleRecord record : comingBack) {
      StoredObject stateFile = listing.get(record.stateFileKey());
      for (String key : record.newerKeys()) {
        assertThat(listing.get(key).isNewerThan(stateFile)).as(key).isTrue();
      }
    }
  }

  @Test
  void noOtherFileIsNewerThanItsStateFile() {
    assertNoListedKeyIsNewerThanItsStateFile(manifest, listing);
  }

  @Test
  void noStateFileIsOlderThanWhatItsFolderHolds() {
    assertNoStateFileIsOlderThanWhatItsFolderHolds(manifest, listing);
  }

  @Test
  void returnsOverASecondAfterItsLastStateFile() {
    // A plan takes its listing to begin a second before it did: one after this still sees every state file as
    // written before it, and names the missing files of live records.
    for (SampleRecord record : manifest.records().values()) {
      assertThat(listing.get(record.stateFileKey()).lastModified()).as(record.stateFileKey())
          .isBefore(returned.minusSeconds(1));
    }
  }

  @Test
  void writesEveryStateFileAfterWhatItHoldsAndListsHoweverSlowThoseWrites(LocalS3Server server) throws Exception {
    String bucket = server.createBucket("sample-archive-slow-writes");
    try (FaultProxy proxy = new FaultProxy(server.endpoint());
        S3Client slowClient = S3Clients.build(server.s3Settings().withEndpoint(proxy.endpoint(), true))) {
      // Every write of a state file inside a project's folder answers 1.5 s late, as a writer of a busy
      // machine may: the project's state file must still come after them, in their second or a later one.
      proxy.plan(request -> request.method().equals("PUT")
          && request.target().matches("/" + bucket + "/slow/projects/[^/]+/.+state\\.json")
          ? FaultProxy.Fault.SLOW : null);
      ObjectStore slowStore = new S3ObjectStore(slowClient, bucket);
      Manifest slow = SampleArchive.generate(slowStore, "slow/", SampleArchive.minimumRecordCount(), SEED, now);

      assertThat(proxy.injected()).containsKey(FaultProxy.Fault.SLOW);
      Map<String, StoredObject> slowListing = new TreeMap<>();
      slowStore.listAll("slow/", object -> slowListing.put(object.key(), object));
      assertNoListedKeyIsNewerThanItsStateFile(slow, slowListing);
      assertNoStateFileIsOlderThanWhatItsFolderHolds(slow, slowListing);
    }
  }

  @Test
  void expectsTheSpecsActionForEachCaseWithoutGrace() {
    Map<SampleCase, Action> expected = new TreeMap<>(Map.ofEntries(
        Map.entry(SampleCase.LIVE, Action.KEEP),
        Map.entry(SampleCase.LIVE_WITH_REMOVED_FILES, Action.DELETE_REMOVED_FILES),
        Map.entry(SampleCase.LIVE_REMOVED_FILES_GONE, Action.KEEP),
        Map.entry(SampleCase.LIVE_REMOVED_FILE_ALSO_IN_FILES, Action.KEEP),
        Map.entry(SampleCase.LIVE_WITH_MISSING_FILES, Action.KEEP),
        Map.entry(SampleCase.DELETED, Action.DELETE_RECORD),
        Map.entry(SampleCase.DELETED_WITH_MISSING_FILES, Action.DELETE_RECORD),
        Map.entry(SampleCase.DELETED_WITH_REMOVED_FILES, Action.DELETE_RECORD),
        Map.entry(SampleCase.EXPIRED, Action.DELETE_RECORD),
        Map.entry(SampleCase.NOT_YET_EXPIRED, Action.KEEP),
        Map.entry(SampleCase.RECENTLY_DELETED, Action.DELETE_RECORD),
        Map.entry(SampleCase.RECENTLY_DELETED_WITH_REMOVED_FILES, Action.DELETE_RECORD),
        Map.entry(SampleCase.COMING_BACK, Action.KEPT_NEWER_FILES),
        Map.entry(SampleCase.COMING_BACK_NEW_FILE, Action.KEPT_NEWER_FILES),
        Map.entry(SampleCase.REFUSED_OUTSIDE_FOLDER, Action.KEPT_REFUSED),
        Map.entry(SampleCase.REFUSED_NOT_SIBLING, Action.KEPT_REFUSED),
        Map.entry(SampleCase.REFUSED_EXPORTER_FOLDER, Action.KEPT_REFUSED),
        Map.entry(SampleCase.REFUSED_OTHER_RECORD_FOLDER, Action.KEPT_REFUSED),
        Map.entry(SampleCase.REFUSED_OTHER_STATE_FILE, Action.KEPT_REFUSED),
        Map.entry(SampleCase.BAD_NOT_JSON, Action.BAD_STATE),
        Map.entry(SampleCase.BAD_DELETE_TYPE, Action.BAD_STATE),
        Map.entry(SampleCase.BAD_EXPIRES_AT, Action.BAD_STATE)));
    assertThat(expected.size()).isEqualTo(SampleCase.values().length - 1);

    for (SampleRecord record : manifest.records().values()) {
      String actual = manifest.expectedActions().get(record.stateFileKey());
      if (record.sampleCase() == SampleCase.DELETED_WITHOUT_MARK) {
        // Its mark is its state file's LastModified, which can be after a `now` taken before generating:
        // with no grace, delete: true is due at once all the same.
        StoredObject stateFile = listing.get(record.stateFileKey());
        assertThat(record.markedAt()).isEqualTo(stateFile.lastModified());
        assertThat(actual).isEqualTo("delete_record");
        assertThat(record.expectedAction(stateFile.lastModified(), Duration.ZERO)).isEqualTo(Action.DELETE_RECORD);
      } else {
        assertThat(actual).as(record.stateFileKey()).isEqualTo(expected.get(record.sampleCase()).label());
      }
    }
  }

  @Test
  void waitsForTheGraceOnlyForRecentMarksAndNeverForRemovedFiles() {
    Duration grace = Duration.ofDays(1);
    for (SampleRecord record : manifest.records().values()) {
      Action action = record.expectedAction(now, grace);
      switch (record.sampleCase()) {
        case RECENTLY_DELETED -> assertThat(action).isEqualTo(Action.NOT_YET_DUE);
        case RECENTLY_DELETED_WITH_REMOVED_FILES -> {
          assertThat(action).isEqualTo(Action.DELETE_REMOVED_FILES);
          assertThat(record.expectedDeletes(now, grace)).isNotEmpty()
              .allSatisfy(key -> assertThat(record.deleteFiles()).contains(key))
              .doesNotContain(record.stateFileKey());
        }
        case DELETED, DELETED_WITH_MISSING_FILES, DELETED_WITH_REMOVED_FILES ->
            assertThat(action).isEqualTo(Action.DELETE_RECORD);
        case COMING_BACK, COMING_BACK_NEW_FILE -> assertThat(action).isEqualTo(Action.KEPT_NEWER_FILES);
        case LIVE_WITH_REMOVED_FILES -> assertThat(action).isEqualTo(Action.DELETE_REMOVED_FILES);
        default -> { }
      }
    }
    assertThat(manifest.expectedActions(grace).values()).contains("not_yet_due");
  }

  @Test
  void plansToDeleteExistingFilesAndTheStateFileOfADueRecord() {
    for (SampleRecord record : manifest.records().values()) {
      Set<String> deletes = record.expectedDeletes(now, Duration.ZERO);
      Action action = record.expectedAction(now, Duration.ZERO);
      if (action == Action.DELETE_RECORD) {
        Set<String> expected = new TreeSet<>(record.existingKeys());
        expected.add(record.stateFileKey());
        assertThat(deletes).as(record.stateFileKey()).isEqualTo(expected);
      } else if (action == Action.DELETE_REMOVED_FILES) {
        assertThat(deletes).as(record.stateFileKey()).isNotEmpty()
            .doesNotContain(record.stateFileKey())
            .doesNotContainAnyElementsOf(record.files())
            .allSatisfy(key -> assertThat(listing).containsKey(key));
      } else {
        assertThat(deletes).as(record.stateFileKey()).isEmpty();
      }
    }
    SampleRecord missing = firstOf(SampleCase.DELETED_WITH_MISSING_FILES);
    assertThat(missing.expectedDeletes(now, Duration.ZERO)).doesNotContainAnyElementsOf(
        missing.files().stream().filter(key -> !listing.containsKey(key)).toList());
    assertThat(manifest.expectedDeletes()).doesNotContainAnyElementsOf(manifest.skippedKeys().stream()
        .filter(key -> key.contains("/punch_lists/")).toList());
  }

  @Test
  void refusedRecordsNameTheKeyTheyMayNotList() {
    assertThat(firstOf(SampleCase.REFUSED_EXPORTER_FOLDER).refusedKey()).startsWith(PREFIX + "_cogram/");
    assertThat(firstOf(SampleCase.REFUSED_OTHER_STATE_FILE).refusedKey()).endsWith("/state.json");
    assertThat(firstOf(SampleCase.REFUSED_OTHER_RECORD_FOLDER).refusedKey())
        .startsWith(Keys.folder(firstOf(SampleCase.REFUSED_OTHER_RECORD_FOLDER).stateFileKey()));
    SampleRecord notSibling = firstOf(SampleCase.REFUSED_NOT_SIBLING);
    assertThat(notSibling.files()).contains(notSibling.refusedKey()).hasSize(2);
    assertThat(manifest.records().values()).filteredOn(record -> record.refusedKey() != null)
        .allSatisfy(record -> assertThat(listing).containsKey(record.refusedKey()));
  }

  @Test
  void writesBadDocumentsThatAreNotValidStateFiles() throws Exception {
    ObjectMapper json = new ObjectMapper();
    String notJson = new String(store.read(firstOf(SampleCase.BAD_NOT_JSON).stateFileKey(), 10_000).bytes());
    assertThatThrownBy(() -> json.readTree(notJson)).isInstanceOf(Exception.class);
    JsonNode deleteType = json.readTree(store.read(firstOf(SampleCase.BAD_DELETE_TYPE).stateFileKey(), 10_000).bytes());
    assertThat(deleteType.get("delete").isTextual()).isTrue();
    JsonNode expiresAt = json.readTree(store.read(firstOf(SampleCase.BAD_EXPIRES_AT).stateFileKey(), 10_000).bytes());
    assertThat(expiresAt.get("expires_at").asText()).isEqualTo("next tuesday");
  }

  @Test
  void writesTheSameKeysForTheSameSeed(LocalS3Server server) {
    ObjectStore otherBucket = new S3ObjectStore(client, server.createBucket("sample-archive-test-again"));
    Manifest again = SampleArchive.generate(otherBucket, "again/", RECORDS, SEED, now);

    List<String> keys = new ArrayList<>();
    otherBucket.listAll("", object -> keys.add(object.key()));
    assertThat(relative(new TreeSet<>(keys), "again/")).isEqualTo(relative(listing.keySet(), PREFIX));
    assertThat(relative(again.expectedDeletes(), "again/")).isEqualTo(relative(manifest.expectedDeletes(), PREFIX));
    assertThat(again.countsByCase()).isEqualTo(manifest.countsByCase());
  }

  @Test
  void refusesFewerRecordsThanTheCatalogue() {
    int minimum = SampleArchive.minimumRecordCount();

    assertThatThrownBy(() -> SampleArchive.generate(store, "small/", minimum - 1, SEED, now))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("recordCount must be at least " + minimum + " (the catalogue of every case at every place): "
            + (minimum - 1));
    assertThat(list("small/")).isEmpty();
  }

  @Test
  void refusesKeysThatTheStoreCannotHold() {
    assertThatThrownBy(() -> SampleArchive.checkKeys(Set.of("a/b", "a/b/c")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Sample key a/b is also the folder of a/b/c");
    assertThatThrownBy(() -> SampleArchive.checkKeys(Set.of("a//b")))
        .hasMessage("Sample key a//b is not storable: the key has an empty segment");
    assertThatThrownBy(() -> SampleArchive.checkKeys(Set.of("a/" + "x".repeat(256))))
        .hasMessageEndingWith("has a segment over 255 bytes");
  }

  /** Apart from a coming-back record's files, no key a record lists is newer than its state file. */
  private static void assertNoListedKeyIsNewerThanItsStateFile(Manifest manifest, Map<String, StoredObject> listing) {
    for (SampleRecord record : manifest.records().values()) {
      if (!record.newerKeys().isEmpty()) {
        continue;
      }
      StoredObject stateFile = listing.get(record.stateFileKey());
      for (String key : record.existingKeys()) {
        assertThat(listing.get(key).isNewerThan(stateFile)).as(key + " of " + record.stateFileKey()).isFalse();
      }
    }
  }

  /**
   * Apart from coming-back files, nothing in a folder record's folder is newer than its state file:
   * nested records' files and state files included, so a project's state file is written after its
   * records' and theirs after their chat messages'.
   */
  private static void assertNoStateFileIsOlderThanWhatItsFolderHolds(Manifest manifest,
      Map<String, StoredObject> listing) {
    Set<String> comingBack = new HashSet<>();
    manifest.records().values().forEach(record -> comingBack.addAll(record.newerKeys()));
    int nested = 0;
    for (SampleRecord record : manifest.records().values()) {
      if (!Keys.name(record.stateFileKey()).equals("state.json")) {
        continue;
      }
      String folder = Keys.folder(record.stateFileKey());
      StoredObject stateFile = listing.get(record.stateFileKey());
      for (StoredObject object : listing.values()) {
        if (object.key().startsWith(folder) && !comingBack.contains(object.key())) {
          assertThat(object.isNewerThan(stateFile)).as(object.key() + " in the folder of " + stateFile.key()).isFalse();
          if (!object.key().equals(stateFile.key()) && manifest.records().containsKey(object.key())) {
            nested++;
          }
        }
      }
    }
    assertThat(nested).as("nested records").isPositive();
  }

  private static SampleRecord firstOf(SampleCase sampleCase) {
    return manifest.records().values().stream().filter(record -> record.sampleCase() == sampleCase).findFirst()
        .orElseThrow(() -> new AssertionError("no record of case " + sampleCase));
  }

  private static Set<String> relative(Set<String> keys, String prefix) {
    return keys.stream().map(key -> key.substring(prefix.length())).collect(Collectors.toCollection(TreeSet::new));
  }

  private static Map<String, StoredObject> list(String prefix) {
    Map<String, StoredObject> objects = new TreeMap<>();
    List<StoredObject> listed = new ArrayList<>();
    store.listAll(prefix, listed::add);
    listed.forEach(object -> objects.put(object.key(), object));
    return objects;
  }
}
