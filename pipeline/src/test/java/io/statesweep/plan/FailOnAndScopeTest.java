package io.statesweep.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which lost files fail a run ({@code --fail-on}), and which records a scoped plan covers. */
class FailOnAndScopeTest {
  private static RunSummary summary(long cameBack, long missing, long errors) {
    return new RunSummary(false, true, 10, 2, 5, 8, 0, 0, 0, errors,
        Map.of("came_back_during_delete", Long.toString(cameBack), "missing_files", Long.toString(missing)));
  }

  @Test
  void aRunThatLostFilesItFailsOnExitsWithFourAndSaysWhich() {
    FailOn both = FailOn.parse("came_back, missing", "--fail-on");

    assertThat(both.appliedTo(summary(0, 0, 0)).exitCode()).isZero();
    assertThat(both.appliedTo(summary(0, 0, 0)).line()).doesNotContain("failed_on");
    assertThat(both.appliedTo(summary(2, 0, 0)).line()).endsWith(" failed_on=came_back");
    assertThat(both.appliedTo(summary(2, 3, 0)).line()).endsWith(" failed_on=came_back,missing");
    assertThat(both.appliedTo(summary(2, 3, 0)).exitCode()).isEqualTo(RunSummary.LOST_FILES);
    // A run with errors fails as one: 1.
    assertThat(both.appliedTo(summary(2, 3, 1)).exitCode()).isEqualTo(1);
    assertThat(FailOn.parse("missing", "x").appliedTo(summary(2, 0, 0)).exitCode()).isZero();
    assertThat(FailOn.NONE.appliedTo(summary(2, 3, 0)).exitCode()).isZero();
    assertThat(FailOn.parse("all", "x")).isEqualTo(both);
    assertThat(FailOn.parse("none", "x")).isEqualTo(FailOn.NONE);
    assertThat(both.toString()).isEqualTo("came_back,missing");
  }

  @Test
  void aFailOnValueThatNamesNoLossIsRefusedNamingItsSource() {
    assertThatThrownBy(() -> FailOn.parse("missing,lost", "STATESWEEP_FAIL_ON"))
        .hasMessage("Invalid sweep.fail-on 'missing,lost' (from STATESWEEP_FAIL_ON): 'lost' is none of came_back,"
            + " missing; give them comma-separated, all, or none");
    assertThatThrownBy(() -> FailOn.parse("missing,missing", "--fail-on"))
        .hasMessage("Invalid sweep.fail-on 'missing,missing' (from --fail-on): missing is given twice");
  }

  @Test
  void aScopeCoversARecordWhenEveryDimensionGivenMatches() {
    Scope scope = new Scope(List.of("cogram/projects/"), Set.of("p-1"), Set.of("emails"));

    assertThat(scope.includes("cogram/projects/p-1/emails/e/state.json", "emails", Map.of("project", "p-1"))).isTrue();
    assertThat(scope.includes("cogram/projects/p-2/emails/e/state.json", "emails", Map.of("project", "p-2")))
        .isFalse();
    assertThat(scope.includes("cogram/projects/p-1/drawings/d/state.json", "drawings", Map.of("project", "p-1")))
        .isFalse();
    assertThat(scope.includes("cogram/projects/p-1/state.json", null, Map.of("project", "p-1"))).isFalse();
    assertThat(scope.includes("cogram/unassigned_project/emails/e/state.json", "emails", Map.of())).isFalse();
    assertThat(new Scope(List.of(), Set.of(), Set.of("emails"))
        .includes("cogram/unassigned_project/emails/e/state.json", "emails", Map.of())).isTrue();
    assertThat(Scope.ALL.includes("anything", null, null)).isTrue();
    assertThat(scope.describe()).isEqualTo("prefixes:cogram/projects/;projects:p-1;kinds:emails");
  }
}
