package io.statesweep.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KeyClassifierTest {

  private final Layout cogram = Layout.builtIn("cogram");
  private final KeyClassifier classifier = cogram.classifier(ExportPrefix.of("cogram"));

  private Classification.StateFile stateFile(String key) {
    Classification classification = classifier.classify(key);
    assertThat(classification).isInstanceOf(Classification.StateFile.class);
    return (Classification.StateFile) classification;
  }

  private Classification.Skipped skipped(String key) {
    Classification classification = classifier.classify(key);
    assertThat(classification).isInstanceOf(Classification.Skipped.class);
    return (Classification.Skipped) classification;
  }

  private static Classification.StateFile expected(String key, String recordType, String kind,
      Map<String, String> ids, RecordShape shape, String scope) {
    return new Classification.StateFile(key, recordType, kind, ids, shape, scope);
  }

  // The places of the layout (pipeline/README.md, "The layout"), one test each.

  @Test
  void organizationStateFileIsTheOrganizationRecord() {
    assertThat(stateFile("cogram/organization/state.json")).isEqualTo(expected(
        "cogram/organization/state.json", "organization", "", Map.of(), RecordShape.FOLDER, "cogram/organization/"));
  }

  @Test
  void agentStateFileIsASingleFileRecordOwningItsSibling() {
    assertThat(stateFile("cogram/organization/agents/a1.state.json")).isEqualTo(expected(
        "cogram/organization/agents/a1.state.json", "agent", "", Map.of("agent", "a1"), RecordShape.SINGLE_FILE,
        "cogram/organization/agents/a1.json"));
  }

  @Test
  void promptStateFileIsASingleFileRecordOwningItsSibling() {
    assertThat(stateFile("cogram/organization/prompts/p1.state.json")).isEqualTo(expected(
        "cogram/organization/prompts/p1.state.json", "prompt", "", Map.of("prompt", "p1"), RecordShape.SINGLE_FILE,
        "cogram/organization/prompts/p1.json"));
  }

  @Test
  void organizationKnowledgeStateFileIsAFolderRecord() {
    assertThat(stateFile("cogram/organization/knowledge/k1/state.json")).isEqualTo(expected(
        "cogram/organization/knowledge/k1/state.json", "organization_knowledge", "", Map.of("entry", "k1"),
        RecordShape.FOLDER, "cogram/organization/knowledge/k1/"));
  }

  @Test
  void projectStateFileIsAFolderRecord() {
    assertThat(stateFile("cogram/projects/p1/state.json")).isEqualTo(expected(
        "cogram/projects/p1/state.json", "project", "", Map.of("project", "p1"), RecordShape.FOLDER,
        "cogram/projects/p1/"));
  }

  @Test
  void projectRecordStateFileCarriesItsKind() {
    assertThat(stateFile("cogram/projects/p1/meetings/m1/state.json")).isEqualTo(expected(
        "cogram/projects/p1/meetings/m1/state.json", "project_record", "meetings",
        Map.of("project", "p1", "kind", "meetings", "record", "m1"), RecordShape.FOLDER,
        "cogram/projects/p1/meetings/m1/"));
  }

  @Test
  void chatMessageStateFileIsASingleFileRecord() {
    assertThat(stateFile("cogram/projects/p1/chat/c1/messages/m1.state.json")).isEqualTo(expected(
        "cogram/projects/p1/chat/c1/messages/m1.state.json", "chat_message", "",
        Map.of("project", "p1", "chat", "c1", "message", "m1"), RecordShape.SINGLE_FILE,
        "cogram/projects/p1/chat/c1/messages/m1.json"));
  }

  @Test
  void unassignedRecordStateFileCarriesItsKind() {
    assertThat(stateFile("cogram/unassigned_project/emails/e1/state.json")).isEqualTo(expected(
        "cogram/unassigned_project/emails/e1/state.json", "unassigned_record", "emails",
        Map.of("kind", "emails", "record", "e1"), RecordShape.FOLDER, "cogram/unassigned_project/emails/e1/"));
  }

  @Test
  void unassignedChatMessageStateFileIsASingleFileRecord() {
    assertThat(stateFile("cogram/unassigned_project/chat/c1/messages/m1.state.json")).isEqualTo(expected(
        "cogram/unassigned_project/chat/c1/messages/m1.state.json", "unassigned_chat_message", "",
        Map.of("chat", "c1", "message", "m1"), RecordShape.SINGLE_FILE,
        "cogram/unassigned_project/chat/c1/messages/m1.json"));
  }

  @Test
  void workflowStateFileIsAFolderRecord() {
    assertThat(stateFile("cogram/workflows/w1/state.json")).isEqualTo(expected(
        "cogram/workflows/w1/state.json", "workflow", "", Map.of("workflow", "w1"), RecordShape.FOLDER,
        "cogram/workflows/w1/"));
  }

  @Test
  void workflowRunStateFileIsASingleFileRecord() {
    assertThat(stateFile("cogram/workflows/w1/runs/r1.state.json")).isEqualTo(expected(
        "cogram/workflows/w1/runs/r1.state.json", "workflow_run", "", Map.of("workflow", "w1", "run", "r1"),
        RecordShape.SINGLE_FILE, "cogram/workflows/w1/runs/r1.json"));
  }

  @Test
  void changeOrdersIsAKnownKind() {
    assertThat(stateFile("cogram/projects/p1/change_orders/co1/state.json").kind()).isEqualTo("change_orders");
  }

  @Test
  void chatFolderOfAProjectIsAlsoARecordOfKindChat() {
    assertThat(stateFile("cogram/projects/p1/chat/c1/state.json").recordType()).isEqualTo("project_record");
  }

  // Keys named like state files anywhere else are files of a record.

  @Test
  void stateNamedKeyUnderAttachmentsIsSkippedAsAFileOfARecord() {
    Classification.Skipped skipped = skipped("cogram/projects/p1/emails/e1/attachments/state.json");

    assertThat(skipped.reason()).isEqualTo("a file named like a state file where layout cogram has no state file");
    assertThat(skipped.recordBoundary()).isFalse();
  }

  @Test
  void dotStateJsonInsideARecordFolderIsSkipped() {
    assertThat(skipped("cogram/projects/p1/documents/d1/contract.state.json").recordBoundary()).isFalse();
  }

  @Test
  void plainStateJsonInAMessagesFolderIsNotAMessage() {
    assertThat(skipped("cogram/projects/p1/chat/c1/messages/state.json").recordBoundary()).isFalse();
  }

  @Test
  void dotStateJsonInAgentsFolderNeedsAnId() {
    assertThat(skipped("cogram/organization/agents/state.json").recordBoundary()).isFalse();
  }

  @Test
  void stateFileAtThePrefixRootIsSkipped() {
    assertThat(skipped("cogram/state.json").reason())
        .isEqualTo("a file named like a state file where layout cogram has no state file");
  }

  @Test
  void emptyOrDotSegmentsNeverMakeAStateFile() {
    assertThat(skipped("cogram/projects//state.json").recordBoundary()).isFalse();
    assertThat(skipped("cogram/projects/../state.json").recordBoundary()).isFalse();
    assertThat(skipped("cogram/projects/./meetings/m1/state.json").recordBoundary()).isFalse();
    assertThat(skipped("cogram/organization/agents/..state.json").recordBoundary()).isFalse();
  }

  @Test
  void exporterFolderIsSkippedAndNeverRead() {
    Classification.Skipped skipped = skipped("cogram/_cogram/projects/p1/state.json");

    assertThat(skipped.reason()).isEqualTo("inside the exporter's own folder _cogram/, which is never read");
    assertThat(skipped.recordBoundary()).isFalse();
  }

  @Test
  void plainFileInExporterFolderIsSkippedToo() {
    assertThat(skipped("cogram/_cogram/manifest.json").reason())
        .isEqualTo("inside the exporter's own folder _cogram/, which is never read");
  }

  @Test
  void exporterFolderKeyIsUnderThePrefix() {
    assertThat(classifier.exporterFolderKey()).isEqualTo("cogram/_cogram/");
    assertThat(classifier.isInExporterFolder("cogram/_cogram/x")).isTrue();
    assertThat(classifier.isInExporterFolder("cogram/_cogramx/x")).isFalse();
  }

  @Test
  void keyOutsideThePrefixIsSkipped() {
    Classification.Skipped skipped = skipped("other/projects/p1/state.json");

    assertThat(skipped.reason()).isEqualTo("outside the export prefix cogram/");
    assertThat(skipped.recordBoundary()).isFalse();
  }

  @Test
  void keyThatOnlySharesThePrefixTextIsOutside() {
    assertThat(skipped("cogram-old/projects/p1/state.json").reason()).isEqualTo("outside the export prefix cogram/");
  }

  @Test
  void unknownKindFolderIsSkippedVisiblyAsARecordBoundary() {
    Classification.Skipped skipped = skipped("cogram/projects/p1/videos/v1/state.json");

    assertThat(skipped.reason()).isEqualTo("unknown kind folder 'videos': layout cogram does not list it"
        + " (add it to the layout's kinds to clean it)");
    assertThat(skipped.recordBoundary()).isTrue();
  }

  @Test
  void unknownKindFolderOfUnassignedProjectIsARecordBoundary() {
    assertThat(skipped("cogram/unassigned_project/videos/v1/state.json").recordBoundary()).isTrue();
  }

  @Test
  void addingAKindIsAConfigurationChangeOnly() {
    String json = cogram.json().replace("\"knowledge\"\n", "\"knowledge\", \"videos\"\n");
    assertThat(json).contains("\"videos\"");
    KeyClassifier extended = Layout.parse(json, "extended.json").classifier(ExportPrefix.of("cogram"));

    Classification classification = extended.classify("cogram/projects/p1/videos/v1/state.json");

    assertThat(classification).isEqualTo(new Classification.StateFile("cogram/projects/p1/videos/v1/state.json",
        "project_record", "videos", Map.of("project", "p1", "kind", "videos", "record", "v1"), RecordShape.FOLDER,
        "cogram/projects/p1/videos/v1/"));
  }

  @Test
  void plainKeysArePlainFiles() {
    assertThat(classifier.classify("cogram/projects/p1/meetings/m1/minutes.pdf"))
        .isEqualTo(new Classification.PlainFile("cogram/projects/p1/meetings/m1/minutes.pdf"));
    assertThat(classifier.classify("cogram/organization/agents/a1.json"))
        .isEqualTo(new Classification.PlainFile("cogram/organization/agents/a1.json"));
  }

  @Test
  void bucketRootPrefixClassifiesRelativeToTheRoot() {
    KeyClassifier root = cogram.classifier(ExportPrefix.of(""));

    assertThat(root.classify("projects/p1/state.json")).isInstanceOf(Classification.StateFile.class);
    assertThat(root.exporterFolderKey()).isEqualTo("_cogram/");
    assertThat(root.classify("_cogram/projects/p1/state.json")).isInstanceOf(Classification.Skipped.class);
  }

  @Test
  void recordBoundariesAreStateFilesAndUnknownKindStateFiles() {
    assertThat(classifier.isRecordBoundary("cogram/projects/p1/meetings/m1/state.json")).isTrue();
    assertThat(classifier.isRecordBoundary("cogram/projects/p1/videos/v1/state.json")).isTrue();
    assertThat(classifier.isRecordBoundary("cogram/projects/p1/emails/e1/attachments/state.json")).isFalse();
    assertThat(classifier.isRecordBoundary("cogram/projects/p1/meetings/m1/minutes.pdf")).isFalse();
    assertThat(classifier.isRecordBoundary("cogram/_cogram/projects/p1/state.json")).isFalse();
  }

  // Owner candidates: which state files would own a key.

  @Test
  void fileOfAProjectRecordHasTheRecordAndTheProjectAsCandidates() {
    assertThat(classifier.ownerCandidates("cogram/projects/p1/meetings/m1/minutes.pdf")).containsExactlyInAnyOrder(
        new OwnerCandidate("cogram/projects/p1/state.json", 4),
        new OwnerCandidate("cogram/projects/p1/meetings/m1/state.json", 8));
  }

  @Test
  void deepFileOfARecordStillHasItsRecordAsClosestCandidate() {
    assertThat(classifier.ownerCandidates("cogram/projects/p1/emails/e1/attachments/a/b.pdf"))
        .containsExactlyInAnyOrder(
            new OwnerCandidate("cogram/projects/p1/state.json", 4),
            new OwnerCandidate("cogram/projects/p1/emails/e1/state.json", 8));
  }

  @Test
  void siblingJsonOfAnAgentHasItsStateFileAsClosestCandidate() {
    assertThat(classifier.ownerCandidates("cogram/organization/agents/a1.json")).containsExactlyInAnyOrder(
        new OwnerCandidate("cogram/organization/state.json", 2),
        new OwnerCandidate("cogram/organization/agents/a1.state.json", 5));
  }

  @Test
  void chatMessageJsonHasThreeNestedCandidates() {
    assertThat(classifier.ownerCandidates("cogram/projects/p1/chat/c1/messages/m1.json")).containsExactlyInAnyOrder(
        new OwnerCandidate("cogram/projects/p1/state.json", 4),
        new OwnerCandidate("cogram/projects/p1/chat/c1/state.json", 8),
        new OwnerCandidate("cogram/projects/p1/chat/c1/messages/m1.state.json", 11));
  }

  @Test
  void workflowRunJsonHasTheRunAndTheWorkflowAsCandidates() {
    assertThat(classifier.ownerCandidates("cogram/workflows/w1/runs/r1.json")).containsExactlyInAnyOrder(
        new OwnerCandidate("cogram/workflows/w1/state.json", 4),
        new OwnerCandidate("cogram/workflows/w1/runs/r1.state.json", 7));
  }

  @Test
  void stateFileIsNeverItsOwnCandidate() {
    assertThat(classifier.ownerCandidates("cogram/projects/p1/meetings/m1/state.json"))
        .containsExactly(new OwnerCandidate("cogram/projects/p1/state.json", 4));
    assertThat(classifier.ownerCandidates("cogram/organization/agents/a1.state.json"))
        .containsExactly(new OwnerCandidate("cogram/organization/state.json", 2));
  }

  @Test
  void fileInAnUnknownKindFolderHasThatFoldersStateFileAsCandidate() {
    assertThat(classifier.ownerCandidates("cogram/projects/p1/videos/v1/clip.mp4"))
        .contains(new OwnerCandidate("cogram/projects/p1/videos/v1/state.json", 8));
  }

  @Test
  void keysOutsideThePrefixOrInTheExporterFolderHaveNoCandidates() {
    assertThat(classifier.ownerCandidates("other/projects/p1/x.pdf")).isEmpty();
    assertThat(classifier.ownerCandidates("cogram/_cogram/projects/p1/x.pdf")).isEmpty();
  }

  @Test
  void keyAtThePrefixRootHasNoCandidates() {
    assertThat(classifier.ownerCandidates("cogram/readme.txt")).isEmpty();
  }

  // Export prefix.

  @Test
  void prefixWithoutTrailingSlashIsNormalised() {
    assertThat(ExportPrefix.of("cogram")).isEqualTo(ExportPrefix.of("cogram/"));
    assertThat(ExportPrefix.of("exports/cogram").value()).isEqualTo("exports/cogram/");
  }

  @Test
  void emptyPrefixIsTheBucketRoot() {
    assertThat(ExportPrefix.of("").isBucketRoot()).isTrue();
    assertThat(ExportPrefix.of("cogram").isBucketRoot()).isFalse();
    assertThat(ExportPrefix.of("").contains("anything")).isTrue();
  }

  @Test
  void prefixRecordRequiresATrailingSlash() {
    assertThatThrownBy(() -> new ExportPrefix("cogram"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("prefix must end with '/': cogram");
  }

  @Test
  void prefixWithALeadingSlashIsRejected() {
    assertThatThrownBy(() -> ExportPrefix.of("/cogram"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid prefix '/cogram/': it starts with a slash");
  }

  @Test
  void prefixWithAnEmptySegmentIsRejected() {
    assertThatThrownBy(() -> ExportPrefix.of("a//b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid prefix 'a//b/': it has an empty segment");
  }

  @Test
  void prefixWithADotDotSegmentIsRejected() {
    assertThatThrownBy(() -> ExportPrefix.of("a/../b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid prefix 'a/../b/': it has a '..' segment");
  }

  @Test
  void prefixEndingWithTwoSlashesIsRejected() {
    assertThatThrownBy(() -> ExportPrefix.of("cogram//"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid prefix 'cogram//': ");
  }

  @Test
  void relativeKeyOfAKeyOutsideThePrefixIsAnError() {
    ExportPrefix prefix = ExportPrefix.of("cogram");

    assertThat(prefix.relative("cogram/projects/p1/state.json")).isEqualTo("projects/p1/state.json");
    assertThatThrownBy(() -> prefix.relative("other/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key other/x is outside the prefix cogram/");
  }

  // Keys.

  @Test
  void shapeProblemAcceptsAnOrdinaryKey() {
    assertThat(Keys.shapeProblem("cogram/projects/p1/meetings/m1/minutes.pdf")).isNull();
    assertThat(Keys.shapeProblem("a...b/.hidden/x..y")).isNull();
  }

  @Test
  void shapeProblemNamesEveryUnsafeShape() {
    assertThat(Keys.shapeProblem("")).isEqualTo("the key is empty");
    assertThat(Keys.shapeProblem("/cogram/x")).isEqualTo("the key starts with a slash");
    assertThat(Keys.shapeProblem("cogram/x/")).isEqualTo("the key ends with a slash (a folder, not an object)");
    assertThat(Keys.shapeProblem("cogram//x")).isEqualTo("the key has an empty segment");
    assertThat(Keys.shapeProblem("cogram/./x")).isEqualTo("the key has a '.' segment");
    assertThat(Keys.shapeProblem("cogram/../x")).isEqualTo("the key has a '..' segment");
    assertThat(Keys.shapeProblem("..")).isEqualTo("the key has a '..' segment");
  }

  @Test
  void stateFileNamesAreStateJsonOrEndWithDotStateJson() {
    assertThat(Keys.isStateFileName("a/state.json")).isTrue();
    assertThat(Keys.isStateFileName("a/m1.state.json")).isTrue();
    assertThat(Keys.isStateFileName("state.json")).isTrue();
    assertThat(Keys.isStateFileName("a/mystate.json")).isFalse();
    assertThat(Keys.isStateFileName("a/state.json/x")).isFalse();
  }
}
