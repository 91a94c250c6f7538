package io.statesweep.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.layout.Classification;
import io.statesweep.layout.ExportPrefix;
import io.statesweep.layout.Layout;
import io.statesweep.state.ParsedState;
import io.statesweep.state.StateDocument;
import io.statesweep.store.StoredObject;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The state file's time comes from the listing, the clock of its files' times. */
class StateFileReadTest {
  private static final String KEY = "cogram/projects/p1/documents/d1/state.json";
  private static final String FILE = "cogram/projects/p1/documents/d1/doc.pdf";
  private static final Classification.StateFile STATE_FILE = (Classification.StateFile)
      Layout.builtIn(Layout.DEFAULT_NAME).classifier(ExportPrefix.of("cogram")).classify(KEY);
  private static final ParsedState DOCUMENT = new ParsedState(
      new StateDocument(true, null, null, List.of(FILE), List.of()), null);

  /** As S3 answers: the listing to the millisecond, the GET's Last-Modified header in whole seconds. */
  private static final StoredObject LISTED =
      new StoredObject(KEY, "e1", Instant.parse("2026-03-02T10:00:00.700Z"), 120);
  private static final StoredObject READ = new StoredObject(KEY, "e1", Instant.parse("2026-03-02T10:00:00Z"), 120);

  @Test
  void aStateFileReadAtTheListedEtagTakesTheListedTimeAndSize() {
    StoredObject listed = new StoredObject(KEY, "e1", LISTED.lastModified(), 121);

    StoredObject planned = read(READ).objectOnListingClock(listed);

    assertThat(planned).isEqualTo(listed);
  }

  @Test
  void aFileWrittenInTheStateFilesSecondBeforeItIsNotNewer() {
    StoredObject file = new StoredObject(FILE, "f1", Instant.parse("2026-03-02T10:00:00.300Z"), 3);
    StoredObject laterFile = new StoredObject(FILE, "f2", Instant.parse("2026-03-02T10:00:00.900Z"), 3);

    StoredObject planned = read(READ).objectOnListingClock(LISTED);

    assertThat(file.isNewerThan(planned)).isFalse();
    assertThat(laterFile.isNewerThan(planned)).isTrue();
    // The header's whole second would keep the record as coming back, on every run.
    assertThat(file.isNewerThan(READ)).isTrue();
  }

  @Test
  void aStateFileRewrittenBetweenListingAndReadKeepsTheVersionItRead() {
    StoredObject rewritten = new StoredObject(KEY, "e2", Instant.parse("2026-03-02T10:00:01Z"), 130);

    StoredObject planned = read(rewritten).objectOnListingClock(LISTED);

    assertThat(planned).isEqualTo(rewritten);
  }

  @Test
  void withoutAListedVersionTheReadOneStays() {
    assertThat(read(READ).objectOnListingClock(null)).isEqualTo(READ);
  }

  @Test
  void aStateFileNotReadHasNoObjectToPlanWith() {
    StateFileRead gone = new StateFileRead(STATE_FILE, StateFileRead.Status.GONE, null, null, null, null);
    StateFileRead failed = new StateFileRead(STATE_FILE, StateFileRead.Status.FAILED, null, null, null, "Cannot read");

    assertThat(gone.objectOnListingClock(LISTED)).isNull();
    assertThat(failed.objectOnListingClock(LISTED)).isNull();
  }

  private static StateFileRead read(StoredObject object) {
    return new StateFileRead(STATE_FILE, StateFileRead.Status.READ, object, "{}", DOCUMENT, null);
  }
}
