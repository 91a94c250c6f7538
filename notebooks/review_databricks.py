# Databricks notebook source
# MAGIC %md
# MAGIC # statesweep: review a plan
# MAGIC
# MAGIC Review the plan of one run before it is executed. Set `catalog_schema` to the schema statesweep registers
# MAGIC its tables in (`--catalog-schema`, such as `main.statesweep`), or `warehouse` to where it writes them (a
# MAGIC path such as `s3://my-reports-bucket/statesweep`); `bucket` and `prefix` to the export under review (empty:
# MAGIC the only export the warehouse holds plans of; with several, the first cell stops and lists them); and `run_id`
# MAGIC to the plan under review (empty: the latest complete plan of that export, by `planned_at`). It runs whole on a
# MAGIC warehouse that holds a single plan. Charts show with `display(fig)`.
# MAGIC
# MAGIC When the plan is right, approve it in the last cell: run it once, it prints the plan's `plan_digest`; type that
# MAGIC digest in the `approve` widget and run the cell again. Or approve from a terminal or a job:
# MAGIC
# MAGIC     statesweep approve --run-id <run_id> --by <your name> --warehouse <warehouse>
# MAGIC
# MAGIC `statesweep execute --run-id <run_id>` refuses a plan that nobody approved, or one older than
# MAGIC `--max-plan-age` (24 h): plan again rather than execute a stale plan.

# COMMAND ----------

dbutils.widgets.text("catalog_schema", "", "catalog_schema (such as main.statesweep)")
dbutils.widgets.text("warehouse", "", "or warehouse (such as s3://my-reports-bucket/statesweep)")
dbutils.widgets.text("bucket", "", "bucket (empty: the only one planned)")
dbutils.widgets.text("prefix", "", "prefix (empty: the only one planned)")
dbutils.widgets.text("run_id", "", "run_id (empty: the latest complete plan)")
dbutils.widgets.text("approve", "", "approve: the plan_digest the last cell shows")
dbutils.widgets.text("note", "", "note of the approval")
schema = dbutils.widgets.get("catalog_schema").strip() or None
warehouse = dbutils.widgets.get("warehouse").strip().rstrip("/")
bucket = dbutils.widgets.get("bucket").strip()
prefix = dbutils.widgets.get("prefix").strip()
run_id = dbutils.widgets.get("run_id").strip()
if not schema and not warehouse:
    raise ValueError("Set the catalog_schema widget (where statesweep registers its tables) or warehouse (their path)")


def table(name):
    """How SQL names a statesweep table: by name in the catalog schema when one is set, else by path."""
    return f"{schema}.{name}" if schema else f"delta.`{warehouse}/{name}`"


if not warehouse:
    # The tables are registered at their paths: the approval cell needs the warehouse they are in.
    warehouse = spark.sql(f"DESCRIBE DETAIL {table('runs')}").first()["location"].rstrip("/").rsplit("/", 1)[0]
# Every plan creates all six tables (approvals and executions empty until an approval or an execute).
TABLES = ["runs", "deletion_plan", "state_files", "plan_summary", "executions", "approvals"]
for name in TABLES:
    spark.sql(f"SELECT * FROM {table(name)}").createOrReplaceTempView(name)
exports = spark.sql("""
SELECT bucket, prefix, count(*) AS plans, max(planned_at) AS latest_plan
FROM runs
WHERE command = 'plan' AND complete
GROUP BY bucket, prefix
ORDER BY bucket, prefix
""").collect()
chosen = [e for e in exports if (not bucket or e["bucket"] == bucket) and (not prefix or e["prefix"] == prefix)]
if len(chosen) != 1:
    found = "; ".join(f"bucket {e['bucket']} prefix {e['prefix']} ({e['plans']} plans)" for e in exports) or "none"
    raise ValueError(f"Set the bucket and prefix of one export (given: bucket '{bucket}', prefix '{prefix}'); "
                     f"complete plans found in {schema or warehouse}: {found}")
bucket, prefix = chosen[0]["bucket"], chosen[0]["prefix"]
spark.createDataFrame([(bucket, prefix)], "bucket string, prefix string").createOrReplaceTempView("review_export")
if not run_id:
    run_id = spark.sql("""
SELECT r.run_id
FROM runs r JOIN review_export e ON r.bucket = e.bucket AND r.prefix = e.prefix
WHERE r.command = 'plan' AND r.complete
ORDER BY r.planned_at DESC, r.run_id DESC
LIMIT 1
""").first()[0]
spark.createDataFrame([(run_id,)], "run_id string").createOrReplaceTempView("review_run")
# The complete plan of the same export before the one under review (none for the first plan).
spark.sql("""
CREATE OR REPLACE TEMPORARY VIEW previous_run AS
SELECT r.run_id, r.planned_at
FROM runs r JOIN review_export e ON r.bucket = e.bucket AND r.prefix = e.prefix
WHERE r.command = 'plan' AND r.complete
  AND r.planned_at < (SELECT max(planned_at) FROM runs WHERE command = 'plan' AND run_id = (SELECT run_id FROM review_run))
ORDER BY r.planned_at DESC
LIMIT 1
""")
previous_run_id = spark.sql("SELECT max(run_id) FROM previous_run").first()[0]
print(f"reviewing run {run_id} of s3://{bucket}/{prefix} in {schema or warehouse}; "
      f"previous complete plan: {previous_run_id or 'none'}")

# COMMAND ----------

# MAGIC %md
# MAGIC ## Run history
# MAGIC Every command of the last runs of this export (`bucket`, `prefix`): plans and execute attempts, their counts, and why an incomplete one stopped.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT run_id, attempt_id, command, complete, started_at, ended_at, listing, inventory_date,
# MAGIC        state_files_scanned, records_deleted, child_keys_deleted, bytes_deleted,
# MAGIC        kept_newer_files, kept_refused, bad_state, not_yet_due, skipped, errors, failure
# MAGIC FROM runs
# MAGIC WHERE bucket = (SELECT bucket FROM review_export) AND prefix = (SELECT prefix FROM review_export)
# MAGIC ORDER BY started_at DESC
# MAGIC LIMIT 50

# COMMAND ----------

# MAGIC %md
# MAGIC ## The plan under review
# MAGIC The run this notebook reviews (the `run_id` widget; else the latest complete plan of the export), its settings and its approvals, newest first (none yet: `approved_by` is empty).

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT r.run_id, r.planned_at, r.bucket, r.prefix, r.layout, r.grace_days,
# MAGIC        r.settings['sweep.grace-days.by-kind'] AS grace_days_by_kind, r.listing, r.inventory_date,
# MAGIC        r.records_deleted, r.child_keys_deleted, r.bytes_deleted, r.summary,
# MAGIC        a.approved_by, a.approved_at, a.note
# MAGIC FROM runs r
# MAGIC LEFT JOIN approvals a ON a.run_id = r.run_id
# MAGIC WHERE r.run_id = (SELECT run_id FROM review_run) AND r.command = 'plan'
# MAGIC ORDER BY a.approved_at DESC NULLS LAST

# COMMAND ----------

# MAGIC %md
# MAGIC ## Plan summary by action and kind
# MAGIC Records, keys and bytes each action would touch. A bar chart (bytes by kind) reads best.
# MAGIC
# MAGIC (In the result, choose a bar chart: Databricks keeps the chart with the notebook.)

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT action, record_type, kind, grace_rule,
# MAGIC        sum(records) AS records, sum(keys_to_delete) AS keys_to_delete,
# MAGIC        round(sum(bytes_to_delete) / 1048576, 1) AS mib_to_delete
# MAGIC FROM plan_summary
# MAGIC WHERE run_id = (SELECT run_id FROM review_run)
# MAGIC GROUP BY action, record_type, kind, grace_rule
# MAGIC ORDER BY mib_to_delete DESC, records DESC

# COMMAND ----------

import matplotlib.pyplot as plt

by_kind = spark.sql("""
SELECT coalesce(kind, record_type) AS kind, round(sum(bytes_to_delete) / 1048576, 1) AS mib_to_delete
FROM plan_summary
WHERE run_id = (SELECT run_id FROM review_run) AND action IN ('delete_record', 'delete_removed_files')
GROUP BY coalesce(kind, record_type)
ORDER BY mib_to_delete DESC
""").toPandas()
fig, ax = plt.subplots(figsize=(8, 4))
if by_kind.empty:
    ax.set_title("nothing to delete")
else:
    by_kind.plot.barh(x="kind", y="mib_to_delete", ax=ax, legend=False, title="MiB to delete by kind")
ax.set_xlabel("MiB")
ax.invert_yaxis()
display(fig)

# COMMAND ----------

# MAGIC %md
# MAGIC ## This plan and the previous one
# MAGIC Records and keys by action in this plan and in the previous complete plan of the same export, side by side: a
# MAGIC jump in `delete_record` that the export's own activity does not explain needs a look before approving. The
# MAGIC first plan of an export has no previous plan (its bars are zero).

# COMMAND ----------

import matplotlib.pyplot as plt

compared = spark.sql("""
SELECT s.action,
       sum(IF(s.run_id = (SELECT run_id FROM review_run), s.records, 0)) AS records_this_plan,
       sum(IF(s.run_id = (SELECT run_id FROM review_run), 0, s.records)) AS records_previous_plan,
       sum(IF(s.run_id = (SELECT run_id FROM review_run), s.keys_to_delete, 0)) AS keys_this_plan,
       sum(IF(s.run_id = (SELECT run_id FROM review_run), 0, s.keys_to_delete)) AS keys_previous_plan
FROM plan_summary s
WHERE s.run_id IN (SELECT run_id FROM review_run UNION ALL SELECT run_id FROM previous_run)
GROUP BY s.action
ORDER BY s.action
""").toPandas().set_index("action").astype("int64")
print(compared.to_string())
fig, (records, keys) = plt.subplots(1, 2, figsize=(12, 4))
if not compared.empty:
    compared[["records_previous_plan", "records_this_plan"]].plot.barh(ax=records, title="records by action")
    compared[["keys_previous_plan", "keys_this_plan"]].plot.barh(ax=keys, title="keys to delete by action")
records.set_xlabel("records")
keys.set_xlabel("keys")
fig.suptitle(f"run {run_id} against the previous plan {previous_run_id or '(none)'}")
display(fig)

# COMMAND ----------

# MAGIC %md
# MAGIC ## When the deleted records became due
# MAGIC Records the plan deletes whole (`delete_record`), by the day they became due (`due_at`). Most exports spread
# MAGIC over many days; a tall spike on one day is a mass marking (many records removed at once in the exporter):
# MAGIC check that it was meant.

# COMMAND ----------

import matplotlib.pyplot as plt

due = spark.sql("""
SELECT CAST(date_trunc('DAY', due_at) AS date) AS due_day, count(*) AS records
FROM deletion_plan
WHERE run_id = (SELECT run_id FROM review_run) AND action = 'delete_record'
GROUP BY CAST(date_trunc('DAY', due_at) AS date)
ORDER BY due_day
""").toPandas()
fig, ax = plt.subplots(figsize=(12, 4))
ax.bar(due["due_day"], due["records"], width=1.0)
ax.set_xlabel("due_at (day)")
ax.set_ylabel("records deleted whole")
ax.set_title("delete_record rows by due day")
fig.autofmt_xdate()
display(fig)

# COMMAND ----------

# MAGIC %md
# MAGIC ## The cost of this run, and what executing it saves
# MAGIC What the plan's S3 requests cost, what its execute will cost (an estimate: two GETs and a listing per record, DeleteObjects as the execute batches them), what the deleted bytes cost a month by storage class, and the minimum-duration charge of deleting keys early, at the list prices of `price_region` (`--prices`). On a versioned bucket the bytes are freed only when noncurrent versions expire: `versioning_note` gives the lifecycle rule.

# COMMAND ----------

import matplotlib.pyplot as plt

cost = spark.sql("""
SELECT price_region, bucket_versioning, versioning_note,
       aggregate(map_values(s3_requests), 0L, (total, n) -> total + n) AS requests,
       aggregate(map_values(execute_requests), 0L, (total, n) -> total + n) AS execute_requests,
       CAST(cost_usd AS double) AS plan_usd, CAST(execute_cost_usd AS double) AS execute_usd,
       CAST(saves_usd_per_month AS double) AS saves_usd_per_month, CAST(early_delete_usd AS double) AS early_delete_usd
FROM runs
WHERE run_id = (SELECT run_id FROM review_run) AND command = 'plan'
""").toPandas()
by_class = spark.sql("""
SELECT storage_class, round(sum(bytes) / 1048576, 3) AS mib_to_delete
FROM plan_summary LATERAL VIEW explode(bytes_by_storage_class) AS storage_class, bytes
WHERE run_id = (SELECT run_id FROM review_run)
GROUP BY storage_class
ORDER BY mib_to_delete DESC
""").toPandas()
print(cost[["price_region", "bucket_versioning", "requests", "execute_requests"]].to_string(index=False))
if cost["versioning_note"].notna().any():
    print(cost["versioning_note"].iloc[0])
prices = str(cost["price_region"].iloc[0])
# One-time dollars and dollars a month are different quantities: each has its own panel and axis.
fig, (once, monthly, classes) = plt.subplots(1, 3, figsize=(15, 4), gridspec_kw={"width_ratios": [3, 1.5, 3]})
cost[["plan_usd", "execute_usd", "early_delete_usd"]].T.plot.barh(
    ax=once, legend=False, title=f"one-time cost, USD ({prices} list prices)")
once.set_xlabel("USD, once")
cost[["saves_usd_per_month"]].T.plot.barh(ax=monthly, legend=False, color="tab:green", title="saving, USD a month")
monthly.set_xlabel("USD per month")
if not by_class.empty:
    by_class.plot.barh(x="storage_class", y="mib_to_delete", ax=classes, legend=False)
classes.set_title("MiB to delete by storage class")
classes.set_xlabel("MiB")
fig.tight_layout()
display(fig)

# COMMAND ----------

# MAGIC %md
# MAGIC ## Projects with the most to delete
# MAGIC
# MAGIC (In the result, choose a bar chart: Databricks keeps the chart with the notebook.)

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT project, sum(records) AS records, sum(keys_to_delete) AS keys_to_delete,
# MAGIC        round(sum(bytes_to_delete) / 1048576, 1) AS mib_to_delete
# MAGIC FROM plan_summary
# MAGIC WHERE run_id = (SELECT run_id FROM review_run) AND action IN ('delete_record', 'delete_removed_files')
# MAGIC GROUP BY project
# MAGIC ORDER BY sum(bytes_to_delete) DESC
# MAGIC LIMIT 25

# COMMAND ----------

# MAGIC %md
# MAGIC ## Reasons
# MAGIC Why records are deleted or kept, with keys and times masked so that alike reasons group together.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT action, reason_pattern, sum(records) AS records, sum(keys_to_delete) AS keys_to_delete
# MAGIC FROM plan_summary
# MAGIC WHERE run_id = (SELECT run_id FROM review_run)
# MAGIC GROUP BY action, reason_pattern
# MAGIC ORDER BY records DESC

# COMMAND ----------

# MAGIC %md
# MAGIC ## The largest deletions
# MAGIC Records by bytes to delete; check that nothing here should stay.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT state_file_key, record_type, kind, action, keys_to_delete, bytes_to_delete, due_at, grace_days, reason
# MAGIC FROM deletion_plan
# MAGIC WHERE run_id = (SELECT run_id FROM review_run) AND action IN ('delete_record', 'delete_removed_files')
# MAGIC ORDER BY bytes_to_delete DESC
# MAGIC LIMIT 100

# COMMAND ----------

# MAGIC %md
# MAGIC ## Every key of the largest record, in execution order
# MAGIC The state file is always last.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT p.state_file_key, d.position, d.delete.key AS key, d.delete.role AS role, d.delete.size AS size,
# MAGIC        d.delete.last_modified AS last_modified
# MAGIC FROM (SELECT state_file_key, deletes FROM deletion_plan
# MAGIC       WHERE run_id = (SELECT run_id FROM review_run) AND action = 'delete_record'
# MAGIC       ORDER BY bytes_to_delete DESC LIMIT 1) p
# MAGIC LATERAL VIEW posexplode(p.deletes) d AS position, delete
# MAGIC ORDER BY d.position

# COMMAND ----------

# MAGIC %md
# MAGIC ## Refused records
# MAGIC A state file listed a key it may not list (outside its folder, another record's, the exporter's folder...): the whole record is kept. Each needs a look.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT state_file_key, record_type, kind, reason
# MAGIC FROM deletion_plan
# MAGIC WHERE run_id = (SELECT run_id FROM review_run) AND action = 'kept_refused'
# MAGIC ORDER BY state_file_key

# COMMAND ----------

# MAGIC %md
# MAGIC ## Records coming back
# MAGIC Due records with a file newer than their state file: kept whole.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT state_file_key, record_type, kind, due_at, reason
# MAGIC FROM deletion_plan
# MAGIC WHERE run_id = (SELECT run_id FROM review_run) AND action = 'kept_newer_files'
# MAGIC ORDER BY state_file_key

# COMMAND ----------

# MAGIC %md
# MAGIC ## Files missing from live records
# MAGIC A live record lists these files but the bucket lacks them (each is also logged as `missing <key>: listed by live record <state file>`, counted in the summary's `missing_files=`): lost, for example to a record that came back during its deletion. Run Verify bucket in the exporter.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT p.state_file_key, p.record_type, p.kind, m.position, m.key AS missing_file
# MAGIC FROM deletion_plan p
# MAGIC LATERAL VIEW posexplode(p.missing_files) m AS position, key
# MAGIC WHERE p.run_id = (SELECT run_id FROM review_run)
# MAGIC ORDER BY p.state_file_key, m.position

# COMMAND ----------

# MAGIC %md
# MAGIC ## Bad state files
# MAGIC Documents that are not valid JSON or have wrong types, and state files that could not be read: kept.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT key, status, message, size, last_modified
# MAGIC FROM state_files
# MAGIC WHERE run_id = (SELECT run_id FROM review_run) AND status IN ('bad_state', 'read_error')
# MAGIC ORDER BY key

# COMMAND ----------

# MAGIC %md
# MAGIC ## Skipped state-file names
# MAGIC Keys named like a state file that are not at a state-file place, or of a kind the layout does not know.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT message, count(*) AS keys, min(key) AS example
# MAGIC FROM state_files
# MAGIC WHERE run_id = (SELECT run_id FROM review_run) AND status = 'skipped'
# MAGIC GROUP BY message
# MAGIC ORDER BY keys DESC

# COMMAND ----------

# MAGIC %md
# MAGIC ## Execution outcomes
# MAGIC What execute attempts of this run did, by outcome; `failed` rows carry per-key errors.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT attempt_id, outcome, count(*) AS records, sum(child_keys_deleted) AS child_keys_deleted,
# MAGIC        sum(size(failures)) AS key_errors
# MAGIC FROM executions
# MAGIC WHERE run_id = (SELECT run_id FROM review_run)
# MAGIC GROUP BY attempt_id, outcome
# MAGIC ORDER BY attempt_id, records DESC

# COMMAND ----------

# MAGIC %md
# MAGIC ## Trend over runs
# MAGIC Per complete plan of this export (`bucket`, `prefix`): records deleted, records coming back, refused, bad state
# MAGIC files and files missing from live records. The chart's scale is logarithmic (zero included), so that a few
# MAGIC refused or bad records show next to thousands deleted.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT run_date, run_id, planned_at, records_deleted, child_keys_deleted, kept_newer_files, kept_refused, bad_state,
# MAGIC        missing_files, not_yet_due, round(bytes_deleted / 1048576, 1) AS mib_deleted
# MAGIC FROM runs
# MAGIC WHERE command = 'plan' AND complete
# MAGIC   AND bucket = (SELECT bucket FROM review_export) AND prefix = (SELECT prefix FROM review_export)
# MAGIC ORDER BY planned_at

# COMMAND ----------

import matplotlib.pyplot as plt

trend = spark.sql("""
SELECT planned_at, coalesce(records_deleted, 0) AS records_deleted, coalesce(kept_newer_files, 0) AS kept_newer_files,
       coalesce(kept_refused, 0) AS kept_refused, coalesce(bad_state, 0) AS bad_state,
       coalesce(missing_files, 0) AS missing_files
FROM runs
WHERE command = 'plan' AND complete
  AND bucket = (SELECT bucket FROM review_export) AND prefix = (SELECT prefix FROM review_export)
ORDER BY planned_at
""").toPandas()
fig, ax = plt.subplots(figsize=(12, 4))
trend.plot(x="planned_at", y=["records_deleted", "kept_newer_files", "kept_refused", "bad_state", "missing_files"],
           ax=ax, marker="o", title=f"complete plans of s3://{bucket}/{prefix}")
ax.set_yscale("symlog", linthresh=1)  # logarithmic above 1, linear through 0: zero counts stay on the chart
ax.set_ylim(bottom=0)
ax.set_ylabel("records per plan (log scale)")
display(fig)

# COMMAND ----------

# MAGIC %md
# MAGIC ## Approve the plan
# MAGIC Run this cell once: it shows what an approval of the plan under review would record (the counts, `plan_rows` and
# MAGIC `plan_digest`, the digest of the plan's rows) and records nothing. To approve, type that `plan_digest` in the
# MAGIC `approve` widget and run the cell again: it records the approval exactly as `statesweep approve` does, by you,
# MAGIC the workspace user (`current_user()`), with the `note` widget, only if the plan's rows still have that digest
# MAGIC (checked again as the approval is recorded). A digest saved in the widget from another plan, or from rows that
# MAGIC changed since, approves nothing; `approve` is empty by default, so "Run all" never approves. An execute refuses
# MAGIC the plan if a row changes after the approval. Needs statesweep's jar on the cluster (a cluster library).

# COMMAND ----------

approve = dbutils.widgets.get("approve").strip()
note = dbutils.widgets.get("note").strip() or None
action = spark._jvm.io.statesweep.spark.Statesweep.get(spark._jsparkSession).approve(run_id).warehouse(warehouse).catalogSchema(schema)
preview = action.preview()
print(f"run {run_id} of s3://{bucket}/{prefix}: records_to_delete={preview.recordsToDelete()}"
      f" records_with_removed_files={preview.recordsWithRemovedFiles()} keys_to_delete={preview.keysToDelete()}"
      f" bytes_to_delete={preview.bytesToDelete()} plan_rows={preview.planRows()}")
print(f"plan_digest={preview.planDigest()}")
if not approve or approve != preview.planDigest():
    print(f"Not approved: to approve run {run_id} as counted above, type its plan_digest in the approve widget"
          + (f" (it holds {approve}, not this plan's digest)" if approve else "") + " and run this cell again")
else:
    user = spark.sql("SELECT current_user()").first()[0]
    approval = action.by(user).note(note).digest(approve).execute()
    print(approval.line())
