# Databricks notebook source
# MAGIC %md
# MAGIC # statesweep: review a plan
# MAGIC
# MAGIC Review the plan of one run before it is executed. Set `catalog_schema` to the schema statesweep registers
# MAGIC its tables in (`--catalog-schema`, such as `main.statesweep`), or `warehouse` to where it writes them (a
# MAGIC path such as `s3://my-reports-bucket/statesweep`), and `run_id` to the plan under review (empty: the latest
# MAGIC complete plan). When the plan is right, approve it in the last cell (type the run id in the `approve`
# MAGIC widget first), or from a terminal or a job:
# MAGIC
# MAGIC     statesweep approve --run-id <run_id> --by <your name> --warehouse <warehouse>
# MAGIC
# MAGIC `statesweep execute --run-id <run_id>` refuses a plan that nobody approved, or one older than
# MAGIC `--max-plan-age` (24 h): plan again rather than execute a stale plan.

# COMMAND ----------

dbutils.widgets.text("catalog_schema", "", "catalog_schema (such as main.statesweep)")
dbutils.widgets.text("warehouse", "", "or warehouse (such as s3://my-reports-bucket/statesweep)")
dbutils.widgets.text("run_id", "", "run_id (empty: the latest plan)")
dbutils.widgets.text("approve", "", "approve: the run_id, to approve it")
dbutils.widgets.text("note", "", "note of the approval")
schema = dbutils.widgets.get("catalog_schema").strip() or None
warehouse = dbutils.widgets.get("warehouse").strip().rstrip("/")
run_id = dbutils.widgets.get("run_id").strip()
if not schema and not warehouse:
    raise ValueError("Set the catalog_schema widget (where statesweep registers its tables) or warehouse (their path)")


def table(name):
    """How SQL names a statesweep table: by name in the catalog schema when one is set, else by path."""
    return f"{schema}.{name}" if schema else f"delta.`{warehouse}/{name}`"


if not warehouse:
    # The tables are registered at their paths: the approval cell needs the warehouse they are in.
    warehouse = spark.sql(f"DESCRIBE DETAIL {table('runs')}").first()["location"].rstrip("/").rsplit("/", 1)[0]
TABLES = ["runs", "deletion_plan", "state_files", "plan_summary", "executions", "approvals"]
for name in TABLES:
    try:
        spark.sql(f"SELECT * FROM {table(name)}").createOrReplaceTempView(name)
    except Exception as e:  # executions and approvals exist once a plan was approved or executed
        print(f"no table {table(name)} yet ({type(e).__name__}); queries that read it will fail")
if not run_id:
    run_id = spark.sql("SELECT max(run_id) FROM runs WHERE command = 'plan' AND complete").first()[0]
spark.createDataFrame([(run_id,)], "run_id string").createOrReplaceTempView("review_run")
print(f"reviewing run {run_id} in {schema or warehouse}")

# COMMAND ----------

# MAGIC %md
# MAGIC ## Run history
# MAGIC Every command of the last runs: plans and execute attempts, their counts, and why an incomplete one stopped.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT run_id, attempt_id, command, complete, started_at, ended_at, listing, inventory_date,
# MAGIC        state_files_scanned, records_deleted, child_keys_deleted, bytes_deleted,
# MAGIC        kept_newer_files, kept_refused, bad_state, not_yet_due, skipped, errors, failure
# MAGIC FROM runs
# MAGIC ORDER BY started_at DESC
# MAGIC LIMIT 50

# COMMAND ----------

# MAGIC %md
# MAGIC ## The plan under review
# MAGIC The run this notebook reviews (the `run_id` widget or parameter; else the latest complete plan), its settings and whether it was approved.

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT r.run_id, r.planned_at, r.bucket, r.prefix, r.layout, r.grace_days,
# MAGIC        r.settings['sweep.grace-days.by-kind'] AS grace_days_by_kind, r.listing, r.inventory_date,
# MAGIC        r.records_deleted, r.child_keys_deleted, r.bytes_deleted, r.summary,
# MAGIC        a.approved_by, a.approved_at, a.note
# MAGIC FROM runs r
# MAGIC LEFT JOIN approvals a ON a.run_id = r.run_id
# MAGIC WHERE r.run_id = (SELECT run_id FROM review_run) AND r.command = 'plan'

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
ax = by_kind.plot.barh(x="kind", y="mib_to_delete", legend=False, title="MiB to delete by kind")
ax.invert_yaxis()
display(plt.gcf())

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
fig, (dollars, classes) = plt.subplots(1, 2, figsize=(12, 4))
cost[["plan_usd", "execute_usd", "early_delete_usd", "saves_usd_per_month"]].T.plot.barh(
    ax=dollars, legend=False, title="USD at " + str(cost["price_region"].iloc[0]) + " list prices")
by_class.plot.barh(x="storage_class", y="mib_to_delete", ax=classes, legend=False, title="MiB to delete by storage class")
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
# MAGIC Per plan: records deleted, records coming back, refused and bad. A line chart over run_date reads best.
# MAGIC
# MAGIC (In the result, choose a line chart: Databricks keeps the chart with the notebook.)

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT run_date, run_id, records_deleted, child_keys_deleted, kept_newer_files, kept_refused, bad_state,
# MAGIC        not_yet_due, round(bytes_deleted / 1048576, 1) AS mib_deleted
# MAGIC FROM runs
# MAGIC WHERE command = 'plan' AND complete
# MAGIC ORDER BY started_at

# COMMAND ----------

import matplotlib.pyplot as plt

trend = spark.sql("""
SELECT run_date, sum(records_deleted) AS records_deleted, sum(kept_newer_files) AS kept_newer_files,
       sum(kept_refused) AS kept_refused, sum(bad_state) AS bad_state
FROM runs
WHERE command = 'plan' AND complete
GROUP BY run_date
ORDER BY run_date
""").toPandas()
ax = trend.plot(x="run_date", y=["records_deleted", "kept_newer_files", "kept_refused", "bad_state"],
                marker="o", title="statesweep plans over time")
ax.set_ylabel("records")
display(plt.gcf())

# COMMAND ----------

# MAGIC %md
# MAGIC ## Approve the plan
# MAGIC Records the approval exactly as `statesweep approve` does (who, when, what the plan deletes, and the digest
# MAGIC of its rows: an execute refuses the plan if a row changes after this), by you, the workspace user
# MAGIC (`current_user()`), with the `note` widget. It approves only when the `approve` widget holds the run id under
# MAGIC review, so running every cell never approves by accident. Needs statesweep's jar on the cluster (a cluster
# MAGIC library).

# COMMAND ----------

approve = dbutils.widgets.get("approve").strip()
note = dbutils.widgets.get("note").strip() or None
if not run_id or approve != run_id:
    print(f"Not approved: to approve run {run_id}, type that run id in the approve widget and run this cell again")
else:
    user = spark.sql("SELECT current_user()").first()[0]
    approval = spark._jvm.io.statesweep.spark.Statesweep.get(spark._jsparkSession).approve(run_id).warehouse(warehouse).catalogSchema(schema).by(user).note(note).execute()
    print(approval.line())
