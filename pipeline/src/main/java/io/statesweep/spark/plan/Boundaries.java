package io.statesweep.spark.plan;

/** Whether a filter keeps or excludes record boundaries (state files at state-file places). */
enum Boundaries { KEEP, EXCLUDE }
