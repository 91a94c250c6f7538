/**
 * Undoing a run (pipeline/README.md, "Undoing a run"), in plain Java over the storage seam: which of a run's deletes a
 * restore takes back ({@link io.statesweep.restore.RecordRestore#toRestore}: each key once, its newest delete, a
 * record's files before its state file), and what became of each key ({@link io.statesweep.restore.KeyRestoration}).
 */
package io.statesweep.restore;
