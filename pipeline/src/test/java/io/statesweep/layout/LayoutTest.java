package io.statesweep.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LayoutTest {

  private static final String SOURCE = "test.json";

  /** A small valid layout; tests break one field of it at a time. */
  private static String layout(String kinds, String places) {
    return """
        {"name": "tiny", "exporter_folder": "_x", "kinds": %s, "marked_at_fields": ["deleted_at"],
         "places": %s}""".formatted(kinds, places);
  }

  private static String layoutWithPlaces(String places) {
    return layout("[\"docs\"]", places);
  }

  private static final String ONE_PLACE = "[{\"path\": \"projects/{project}/state.json\", \"record_type\": \"project\"}]";

  @Test
  void builtInCogramLayoutHasTheExportersKindsAndFolder() {
    Layout cogram = Layout.builtIn("cogram");

    assertThat(cogram.name()).isEqualTo("cogram");
    assertThat(cogram.origin()).isEqualTo("layouts/cogram.json");
    assertThat(cogram.exporterFolder()).isEqualTo("_cogram");
    assertThat(cogram.markedAtFields()).containsExactly("deleted_at");
    assertThat(cogram.kinds()).containsExactlyInAnyOrder(
        "meetings", "emails", "documents", "drawings", "drawing_sets", "reports", "observations",
        "transmittals", "submittals", "rfis", "change_orders", "tasks", "correspondence", "chat", "knowledge");
  }

  @Test
  void builtInCogramLayoutHasOnePlacePerStateFilePlaceOfTheExport() {
    assertThat(Layout.builtIn("cogram").places()).extracting(StatePlace::path).containsExactlyInAnyOrder(
        "organization/state.json",
        "organization/agents/{agent}.state.json",
        "organization/prompts/{prompt}.state.json",
        "organization/knowledge/{entry}/state.json",
        "projects/{project}/state.json",
        "projects/{project}/{kind}/{record}/state.json",
        "projects/{project}/chat/{chat}/messages/{message}.state.json",
        "unassigned_project/{kind}/{record}/state.json",
        "unassigned_project/chat/{chat}/messages/{message}.state.json",
        "workflows/{workflow}/state.json",
        "workflows/{workflow}/runs/{run}.state.json");
  }

  @Test
  void topFoldersAreTheFirstFolderOfEveryPlace() {
    assertThat(Layout.builtIn("cogram").topFolders())
        .containsExactly("organization", "projects", "unassigned_project", "workflows");
  }

  @Test
  void unknownBuiltInLayoutIsRejected() {
    assertThatThrownBy(() -> Layout.builtIn("nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Unknown layout 'nope': no resource layouts/nope.json");
  }

  @Test
  void loadReadsALayoutFileFromAPath(@TempDir Path folder) throws Exception {
    Path file = folder.resolve("tiny.json");
    Files.writeString(file, layoutWithPlaces(ONE_PLACE));

    Layout loaded = Layout.load(file.toString());

    assertThat(loaded.name()).isEqualTo("tiny");
    assertThat(loaded.origin()).isEqualTo(file.toString());
    assertThat(loaded.json()).isEqualTo(layoutWithPlaces(ONE_PLACE));
  }

  @Test
  void loadOfAMissingFileSaysItDoesNotExist() {
    assertThatThrownBy(() -> Layout.load("/no/such/layout.json"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Layout file /no/such/layout.json does not exist");
  }

  @Test
  void loadOfABareNameUsesTheBuiltInLayout() {
    assertThat(Layout.load("cogram").origin()).isEqualTo("layouts/cogram.json");
  }

  @Test
  void markedAtFieldsAreOptional() {
    Layout layout = Layout.parse(
        "{\"name\": \"tiny\", \"exporter_folder\": \"_x\", \"kinds\": [], \"places\": " + ONE_PLACE + "}", SOURCE);

    assertThat(layout.markedAtFields()).isEmpty();
  }

  @Test
  void layoutSurvivesJavaSerialization() throws Exception {
    KeyClassifier classifier = Layout.builtIn("cogram").classifier(ExportPrefix.of("cogram"));

    KeyClassifier copy = roundTrip(classifier);

    assertThat(copy.layout().origin()).isEqualTo("layouts/cogram.json");
    assertThat(copy.classify("cogram/projects/p/change_orders/c/state.json"))
        .isInstanceOf(Classification.StateFile.class);
  }

  @Test
  void rejectsADocumentThatIsNotJson() {
    assertThatThrownBy(() -> Layout.parse("{name: tiny", SOURCE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid layout test.json: not JSON: ");
  }

  @Test
  void rejectsADocumentThatIsNotAnObject() {
    assertThatThrownBy(() -> Layout.parse("[]", SOURCE))
        .hasMessage("Invalid layout test.json: not a JSON object");
  }

  @Test
  void rejectsAnEmptyDocument() {
    assertThatThrownBy(() -> Layout.parse("", SOURCE))
        .hasMessage("Invalid layout test.json: not a JSON object");
  }

  @Test
  void rejectsAMissingName() {
    assertThatThrownBy(() -> Layout.parse(layoutWithPlaces(ONE_PLACE).replace("\"name\": \"tiny\",", ""), SOURCE))
        .hasMessage("Invalid layout test.json: field name must be a non-empty string");
  }

  @Test
  void rejectsAnExporterFolderWithASlash() {
    assertThatThrownBy(() -> Layout.parse(layoutWithPlaces(ONE_PLACE).replace("\"_x\"", "\"a/b\""), SOURCE))
        .hasMessage("Invalid layout test.json: field exporter_folder must be one folder name, not a/b");
  }

  @Test
  void rejectsADotDotExporterFolder() {
    assertThatThrownBy(() -> Layout.parse(layoutWithPlaces(ONE_PLACE).replace("\"_x\"", "\"..\""), SOURCE))
        .hasMessage("Invalid layout test.json: field exporter_folder must be one folder name, not ..");
  }

  @Test
  void rejectsKindsThatAreNotAnArray() {
    assertThatThrownBy(() -> Layout.parse(layout("\"docs\"", ONE_PLACE), SOURCE))
        .hasMessage("Invalid layout test.json: field kinds must be an array");
  }

  @Test
  void rejectsAKindWithASlash() {
    assertThatThrownBy(() -> Layout.parse(layout("[\"docs\", \"a/b\"]", ONE_PLACE), SOURCE))
        .hasMessage("Invalid layout test.json: field kinds has a bad entry \"a/b\"");
  }

  @Test
  void rejectsAKindThatIsNotAString() {
    assertThatThrownBy(() -> Layout.parse(layout("[7]", ONE_PLACE), SOURCE))
        .hasMessage("Invalid layout test.json: field kinds has a bad entry 7");
  }

  @Test
  void rejectsABlankMarkedAtField() {
    String json = layoutWithPlaces(ONE_PLACE).replace("[\"deleted_at\"]", "[\"deleted_at\", \" \"]");

    assertThatThrownBy(() -> Layout.parse(json, SOURCE))
        .hasMessage("Invalid layout test.json: field marked_at_fields has a bad entry \" \"");
  }

  @Test
  void rejectsMissingPlaces() {
    String json = "{\"name\": \"tiny\", \"exporter_folder\": \"_x\", \"kinds\": []}";

    assertThatThrownBy(() -> Layout.parse(json, SOURCE))
        .hasMessage("Invalid layout test.json: field places must be an array");
  }

  @Test
  void rejectsEmptyPlaces() {
    assertThatThrownBy(() -> Layout.parse(layoutWithPlaces("[]"), SOURCE))
        .hasMessage("Invalid layout test.json: field places is empty");
  }

  @Test
  void rejectsAPlaceThatIsNotAnObject() {
    assertThatThrownBy(() -> Layout.parse(layoutWithPlaces("[\"projects/{p}/state.json\"]"), SOURCE))
        .hasMessage("Invalid layout test.json: field places[0] is not an object");
  }

  @Test
  void rejectsAPlaceWithoutRecordTypeNamingItsIndex() {
    String places = "[{\"path\": \"a/state.json\", \"record_type\": \"a\"}, {\"path\": \"b/state.json\"}]";

    assertThatThrownBy(() -> Layout.parse(layoutWithPlaces(places), SOURCE))
        .hasMessage("Invalid layout test.json places[1]: field record_type must be a non-empty string");
  }

  @Test
  void rejectsAPlaceListedTwice() {
    String places = "[{\"path\": \"a/state.json\", \"record_type\": \"a\"}, {\"path\": \"a/state.json\", \"record_type\": \"b\"}]";

    assertThatThrownBy(() -> Layout.parse(layoutWithPlaces(places), SOURCE))
        .hasMessage("Invalid layout test.json: place a/state.json is listed twice");
  }

  @Test
  void rejectsAStateFileAtThePrefixItself() {
    assertThatThrownBy(() -> Layout.parse(layoutWithPlaces("[{\"path\": \"state.json\", \"record_type\": \"all\"}]"), SOURCE))
        .hasMessage("Invalid layout test.json: places[0]: a state.json at the prefix itself would own the whole export");
  }

  @Test
  void rejectsAPlaceInsideTheExporterFolder() {
    assertThatThrownBy(() -> Layout.parse(layoutWithPlaces("[{\"path\": \"_x/{id}/state.json\", \"record_type\": \"own\"}]"), SOURCE))
        .hasMessage("Invalid layout test.json: places[0]: it is inside the exporter's folder _x/");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      a/b.json                | place a/b.json must end with state.json or {id}.state.json, not b.json
      a//state.json           | place a//state.json has an empty segment
      a/x{y}/state.json       | place a/x{y}/state.json: a variable must be a whole segment: x{y}
      {a}/{a}/state.json      | place {a}/{a}/state.json has an empty or repeated variable {a}
      a/{}/state.json         | place a/{}/state.json has an empty or repeated variable {}
      a/{kind}.state.json     | place a/{kind}.state.json has a bad id variable in {kind}.state.json
      {a}/{a}.state.json      | place {a}/{a}.state.json has a bad id variable in {a}.state.json
      """)
  void rejectsABadPlacePathNamingIt(String path, String problem) {
    String places = "[{\"path\": \"" + path + "\", \"record_type\": \"r\"}]";

    assertThatThrownBy(() -> Layout.parse(layoutWithPlaces(places), SOURCE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid layout test.json: places[0]: " + problem);
  }

  @SuppressWarnings("unchecked")
  static <T> T roundTrip(T value) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (T) in.readObject();
    }
  }
}
