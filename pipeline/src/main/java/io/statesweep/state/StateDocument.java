package io.statesweep.state;

import java.time.Instant;
import java.util.List;

/**
 * The fields of a state file that the cleanup uses (README, "Actions (one per record)"). Lists keep the document's order
 * and its duplicates; the planner deduplicates.
 *
 * @param delete {@code true}: the record left the product
 * @param expiresAt the end of retention, or null
 * @param markedAt when the record was marked {@code delete: true}, when the document says so, or null
 * @param files every key of the record
 * @param deleteFiles keys removed from a live record, which may go at once
 */
public record StateDocument(
    boolean delete, Instant expiresAt, Instant markedAt, List<String> files, List<String> deleteFiles) {
  public StateDocument {
    files = List.copyOf(files);
    deleteFiles = List.copyOf(deleteFiles);
  }
}
