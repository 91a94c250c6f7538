package io.statesweep.plan;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which lost files fail a run that otherwise succeeded ({@code --fail-on}; conf/deploy/README.md, "Failures page
 * someone"): a run that saw one exits with {@link RunSummary#LOST_FILES} and its summary ends with {@code
 * failed_on=<what>}, so that the scheduler shows the step as failed and its notification goes out. Lost files are no
 * errors of the run (it did what the state files say), so without this setting such a run exits 0, as the exporter's
 * reference cleanup does.
 *
 * @param losses the kinds of loss that fail the run; empty for none
 */
public record FailOn(Set<Loss> losses) {

  /** A kind of lost file, the name {@code --fail-on} gives it, and the summary pair that counts it. */
  public enum Loss {
    /** A record came back while its keys went: a file it uploaded again was deleted (execute). */
    CAME_BACK("came_back", "came_back_during_delete"),
    /** A live record lists a file that the bucket lacks (every plan). */
    MISSING("missing", "missing_files");

    private final String label;
    private final String summaryPair;

    Loss(String label, String summaryPair) {
      this.label = label;
      this.summaryPair = summaryPair;
    }

    public String label() {
      return label;
    }

    /** The summary pair whose count, above 0, is this loss. */
    public String summaryPair() {
      return summaryPair;
    }
  }

  public static final FailOn NONE = new FailOn(Set.of());

  public FailOn {
    requireNonNull(losses, "losses is null");
    losses = losses.isEmpty() ? Set.of() : java.util.Collections.unmodifiableSet(EnumSet.copyOf(losses));
  }

  /**
   * {@code came_back}, {@code missing}, both comma-separated, {@code all} for both, or {@code none}.
   *
   * @param source where the value came from, for the message ({@code --fail-on}, {@code STATESWEEP_FAIL_ON})
   */
  public static FailOn parse(String text, String source) {
    requireNonNull(text, "text is null");
    String trimmed = text.trim().toLowerCase(Locale.ROOT);
    if (trimmed.equals("none") || trimmed.isEmpty()) {
      return NONE;
    }
    if (trimmed.equals("all")) {
      return new FailOn(EnumSet.allOf(Loss.class));
    }
    EnumSet<Loss> losses = EnumSet.noneOf(Loss.class);
    for (String part : trimmed.split(",")) {
      String name = part.trim();
      Loss loss = null;
      for (Loss candidate : Loss.values()) {
        if (candidate.label.equals(name)) {
          loss = candidate;
        }
      }
      if (loss == null) {
        throw new BadSettingsException("Invalid sweep.fail-on '" + LineText.escape(text) + "' (from " + source
            + "): '" + LineText.escape(name) + "' is none of came_back, missing; give them comma-separated, all,"
            + " or none");
      }
      if (!losses.add(loss)) {
        throw new BadSettingsException("Invalid sweep.fail-on '" + LineText.escape(text) + "' (from " + source
            + "): " + name + " is given twice");
      }
    }
    return new FailOn(losses);
  }

  /**
   * The summary, with {@code failed_on=<losses>} last when it counts a loss this setting fails on: its
   * {@link RunSummary#exitCode()} is then {@link RunSummary#LOST_FILES} (unless the run failed anyway).
   */
  public RunSummary appliedTo(RunSummary summary) {
    requireNonNull(summary, "summary is null");
    List<String> seen = new ArrayList<>();
    for (Loss loss : losses) {
      String count = summary.extra().get(loss.summaryPair);
      if (count != null && !count.equals("0")) {
        seen.add(loss.label);
      }
    }
    return seen.isEmpty() ? summary : summary.with(RunSummary.FAILED_ON, String.join(",", seen));
  }

  /** The setting as given: {@code came_back,missing}, or {@code none}. */
  @Override
  public String toString() {
    return losses.isEmpty() ? "none" : String.join(",", losses.stream().map(Loss::label).toList());
  }
}
