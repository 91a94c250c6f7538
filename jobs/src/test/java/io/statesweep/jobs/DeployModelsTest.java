package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.protocol.MarshallingType;
import software.amazon.awssdk.core.traits.ListTrait;
import software.amazon.awssdk.core.traits.MapTrait;
import software.amazon.awssdk.services.cloudwatchlogs.model.PutMetricFilterRequest;
import software.amazon.awssdk.services.emr.model.AddJobFlowStepsRequest;
import software.amazon.awssdk.services.emr.model.StepConfig;
import software.amazon.awssdk.services.eventbridge.model.PutRuleRequest;
import software.amazon.awssdk.services.eventbridge.model.PutTargetsRequest;
import software.amazon.awssdk.services.scheduler.model.CreateScheduleRequest;
import software.amazon.awssdk.utils.builder.Buildable;

/**
 * Every definition in {@code conf/deploy} parses into its platform's own request model, member by member as the
 * platform's API and CLI read it (conf/deploy/README.md, "The files"): a field the model does not have, a value of
 * another type or an enum value the API does not know fails the build (the models do not say which members are
 * required: {@link DeployDefinitionsTest} checks what each definition must hold). The AWS definitions go into the AWS
 * SDK for Java v2's request models through their own field metadata ({@link SdkField}: each member's name and type),
 * the Databricks job into the Databricks SDK for Java's {@code CreateJob}, and a schedule's target input into the
 * request of the API the schedule calls.
 *
 * <p>Two kinds of file have no model here, and say so in {@link #NO_MODEL_HERE}: the EMR Serverless job runs (the SDK's
 * {@code emrserverless} module is not served by the registry this builds from) and the IAM policies (nor is
 * {@code iam-policy-builder}); {@link DeployDefinitionsTest} checks both, the policies with its own evaluator.
 */
class DeployModelsTest {
  private static final Path DEPLOY = Path.of("..", "conf", "deploy");
  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
      .build();

  /** The files of conf/deploy that no model here reads, with why. */
  private static final Map<String, String> NO_MODEL_HERE = Map.of(
      "emr-serverless-", "the AWS SDK's emrserverless module is not served here: DeployDefinitionsTest reads them",
      "iam-", "the AWS SDK's iam-policy-builder is not served here: DeployDefinitionsTest evaluates them");

  @Test
  void everyDefinitionParsesIntoItsPlatformsModel() throws IOException {
    List<String> parsed = new ArrayList<>();
    List<String> unread = new ArrayList<>();
    try (Stream<Path> files = Files.walk(DEPLOY)) {
      for (Path file : files.filter(path -> path.toString().endsWith(".json")).sorted().toList()) {
        String name = DEPLOY.relativize(file).toString();
        if (parse(name, read(file))) {
          parsed.add(name);
        } else {
          unread.add(name);
        }
      }
    }

    assertThat(unread).as("files of conf/deploy no model reads, and none says why").allSatisfy(name ->
        assertThat(NO_MODEL_HERE.keySet()).anyMatch(name::startsWith));
    assertThat(parsed).as("the definitions parsed").contains("emr-step.json", "emr-configurations.json",
        "databricks-job.json", "schedule-emr-steps.json", "eventbridge-rule-emr-step-failed.json",
        "metric-filters/run-incomplete.json", "alarms/no-approved-plan.json", "sns-topic.json",
        "sqs-dead-letter-queue.json");
  }

  /** Whether a model reads {@code name}: parses it into that model (throws when it does not fit), else false. */
  private static boolean parse(String name, JsonNode json) throws IOException {
    if (name.startsWith("schedule-")) {
      CreateScheduleRequest schedule = model(json, CreateScheduleRequest.builder());
      String target = schedule.target().arn();
      if (target.endsWith(":aws-sdk:emr:addJobFlowSteps")) {
        model(JSON.readTree(schedule.target().input()), AddJobFlowStepsRequest.builder());
      } else {
        assertThat(target).as(name + ": a target this test knows").endsWith(":aws-sdk:emrserverless:startJobRun");
      }
      return true;
    }
    if (name.startsWith("eventbridge-rule-")) {
      model(json, PutRuleRequest.builder());
      return true;
    }
    if (name.startsWith("eventbridge-targets-")) {
      model(json, PutTargetsRequest.builder());
      return true;
    }
    if (name.startsWith("metric-filters/")) {
      model(json, PutMetricFilterRequest.builder());
      return true;
    }
    if (name.equals("emr-step.json")) {
      for (JsonNode step : json) {
        model(stepConfig(step), StepConfig.builder());
      }
      return true;
    }
    if (name.equals("emr-configurations.json")) {
      for (JsonNode configuration : json) {
        model(configuration, software.amazon.awssdk.services.emr.model.Configuration.builder());
      }
      return true;
    }
    if (name.equals("sns-topic.json")) {
      software.amazon.awssdk.services.sns.model.CreateTopicRequest topic = model(json,
          software.amazon.awssdk.services.sns.model.CreateTopicRequest.builder());
      assertThat(JSON.readTree(topic.attributes().get("Policy")).get("Statement")).as("its policy").isNotEmpty();
      return true;
    }
    if (name.equals("sns-subscription.json")) {
      model(json, software.amazon.awssdk.services.sns.model.SubscribeRequest.builder());
      return true;
    }
    if (name.equals("sqs-dead-letter-queue.json")) {
      model(json, software.amazon.awssdk.services.sqs.model.CreateQueueRequest.builder());
      return true;
    }
    if (name.startsWith("alarms/")) {
      model(json, software.amazon.awssdk.services.cloudwatch.model.PutMetricAlarmRequest.builder());
      return true;
    }
    if (name.equals("databricks-job.json")) {
      JSON.treeToValue(json, com.databricks.sdk.service.jobs.CreateJob.class);
      return true;
    }
    return false;
  }

  @Test
  void aMisspelledFieldAWrongTypeAndAnUnknownEnumValueFailTheBuild() throws IOException {
    ObjectNode schedule = (ObjectNode) read(DEPLOY.resolve("schedule-emr-steps.json"));

    ObjectNode misspelled = schedule.deepCopy();
    misspelled.set("FlexibleTimeWindoww", misspelled.remove("FlexibleTimeWindow"));
    assertThatThrownBy(() -> model(misspelled, CreateScheduleRequest.builder()))
        .hasMessage("CreateScheduleRequest has no member FlexibleTimeWindoww (its members: ActionAfterCompletion,"
            + " ClientToken, Description, EndDate, FlexibleTimeWindow, GroupName, KmsKeyArn, Name, ScheduleExpression,"
            + " ScheduleExpressionTimezone, StartDate, State, Target)");
    ObjectNode wrongType = schedule.deepCopy();
    ((ObjectNode) wrongType.get("Target").get("RetryPolicy")).put("MaximumRetryAttempts", "3");
    assertThatThrownBy(() -> model(wrongType, CreateScheduleRequest.builder()))
        .hasMessage("Target.RetryPolicy.MaximumRetryAttempts is not an INTEGER: \"3\"");
    ObjectNode unknownEnum = schedule.deepCopy();
    ((ObjectNode) unknownEnum.get("FlexibleTimeWindow")).put("Mode", "OF");
    assertThatThrownBy(() -> model(unknownEnum, CreateScheduleRequest.builder()))
        .hasMessage("FlexibleTimeWindow.Mode is OF, which the API does not know (it knows: OFF, FLEXIBLE)");
    ObjectNode job = (ObjectNode) read(DEPLOY.resolve("databricks-job.json"));
    job.put("max_concurent_runs", 1);
    assertThatThrownBy(() -> JSON.treeToValue(job, com.databricks.sdk.service.jobs.CreateJob.class))
        .hasMessageContaining("Unrecognized field \"max_concurent_runs\"");
  }

  /**
   * A step of the CLI's {@code aws emr add-steps --steps} (conf/deploy/emr-step.json) as the CLI sends it: a
   * {@code CUSTOM_JAR} step's {@code Jar}, {@code Args}, {@code MainClass} and {@code Properties} become its
   * {@code HadoopJarStep}; any other key of the CLI's is refused.
   */
  private static JsonNode stepConfig(JsonNode cliStep) {
    ObjectNode step = JSON.createObjectNode();
    ObjectNode jar = step.putObject("HadoopJarStep");
    for (Iterator<Map.Entry<String, JsonNode>> it = cliStep.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      switch (field.getKey()) {
        case "Name", "ActionOnFailure" -> step.set(field.getKey(), field.getValue());
        case "Type" -> assertThat(field.getValue().asText()).as("a step type the CLI sends as a jar")
            .isEqualTo("CUSTOM_JAR");
        case "Jar", "Args", "MainClass" -> jar.set(field.getKey(), field.getValue());
        case "Properties" -> {
          ArrayNode properties = jar.putArray("Properties");
          for (String pair : field.getValue().asText().split(",")) {
            properties.addObject().put("Key", pair.substring(0, pair.indexOf('='))).put("Value",
                pair.substring(pair.indexOf('=') + 1));
          }
        }
        default -> throw new AssertionError("emr-step.json: the CLI's steps have no key " + field.getKey());
      }
    }
    return step;
  }

  private static JsonNode read(Path file) throws IOException {
    return JSON.readTree(Files.readString(file));
  }

  /**
   * {@code json} read into the model {@code builder} builds, as the API reads it: each member by its name in the
   * model, of its type; then every enum member checked against the values the API knows.
   */
  @SuppressWarnings("unchecked")
  static <T> T model(JsonNode json, SdkPojo builder) {
    fill(json, builder, "");
    T built = (T) ((Buildable) builder).build();
    knownEnums(built, "");
    return built;
  }

  private static void fill(JsonNode json, SdkPojo builder, String path) {
    String shape = builder.getClass().getEnclosingClass().getSimpleName();
    if (!json.isObject()) {
      throw new AssertionError(path(path, shape) + " is not an object: " + json);
    }
    Map<String, SdkField<?>> members = new TreeMap<>();
    builder.sdkFields().forEach(field -> members.put(field.memberName(), field));
    for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      SdkField<?> field = members.get(entry.getKey());
      if (field == null) {
        throw new AssertionError(shape + " has no member " + entry.getKey() + " (its members: "
            + String.join(", ", members.keySet()) + ")");
      }
      field.set(builder, value(field, entry.getValue(), path(path, entry.getKey())));
    }
  }

  private static String path(String path, String member) {
    return path.isEmpty() ? member : path + "." + member;
  }

  private static Object value(SdkField<?> field, JsonNode json, String path) {
    MarshallingType<?> type = field.marshallingType();
    if (type == MarshallingType.STRING) {
      return scalar(json.isTextual(), json, path, "a STRING").asText();
    } else if (type == MarshallingType.INTEGER) {
      return scalar(json.isInt(), json, path, "an INTEGER").intValue();
    } else if (type == MarshallingType.LONG) {
      return scalar(json.isIntegralNumber(), json, path, "a LONG").longValue();
    } else if (type == MarshallingType.DOUBLE) {
      return scalar(json.isNumber(), json, path, "a DOUBLE").doubleValue();
    } else if (type == MarshallingType.BOOLEAN) {
      return scalar(json.isBoolean(), json, path, "a BOOLEAN").booleanValue();
    } else if (type == MarshallingType.INSTANT) {
      return java.time.Instant.parse(scalar(json.isTextual(), json, path, "an INSTANT").asText());
    } else if (type == MarshallingType.SDK_POJO) {
      SdkPojo nested = field.constructor().get();
      fill(json, nested, path);
      return ((Buildable) nested).build();
    } else if (type == MarshallingType.LIST) {
      SdkField<?> member = field.getTrait(ListTrait.class).memberFieldInfo();
      scalar(json.isArray(), json, path, "a LIST");
      List<Object> values = new ArrayList<>();
      json.forEach(element -> values.add(value(member, element, path + "[]")));
      return values;
    } else if (type == MarshallingType.MAP) {
      SdkField<?> member = field.getTrait(MapTrait.class).valueFieldInfo();
      scalar(json.isObject(), json, path, "a MAP");
      Map<String, Object> values = new TreeMap<>();
      json.fields().forEachRemaining(entry -> values.put(entry.getKey(), value(member, entry.getValue(),
          path + "." + entry.getKey())));
      return values;
    }
    throw new AssertionError(path + ": a member of type " + type + ", which this test does not read");
  }

  private static JsonNode scalar(boolean is, JsonNode json, String path, String what) {
    if (!is) {
      throw new AssertionError(path + " is not " + what + ": " + json);
    }
    return json;
  }

  /** Every enum member of {@code pojo} and the pojos it holds has a value the API knows. */
  private static void knownEnums(Object pojo, String path) {
    if (!(pojo instanceof SdkPojo sdkPojo)) {
      return;
    }
    for (Method method : pojo.getClass().getMethods()) {
      if (method.getParameterCount() == 0 && method.getReturnType().isEnum()) {
        Object value = invoke(method, pojo);
        if (value != null && ((Enum<?>) value).name().equals("UNKNOWN_TO_SDK_VERSION")) {
          String member = memberOf(sdkPojo, method.getName());
          throw new AssertionError(path(path, member) + " is " + invoke(asString(method), pojo) + ", which the API"
              + " does not know (it knows: " + String.join(", ", Stream.of(method.getReturnType().getEnumConstants())
              .map(Object::toString).filter(known -> !known.equals("null")).toList()) + ")");
        }
      }
    }
    for (SdkField<?> field : sdkPojo.sdkFields()) {
      Object value = field.getValueOrDefault(pojo);
      String at = path(path, field.memberName());
      if (value instanceof List<?> list) {
        list.forEach(element -> knownEnums(element, at + "[]"));
      } else if (value instanceof Map<?, ?> map) {
        map.forEach((key, element) -> knownEnums(element, at + "." + key));
      } else {
        knownEnums(value, at);
      }
    }
  }

  private static String memberOf(SdkPojo pojo, String getter) {
    return pojo.sdkFields().stream().map(SdkField::memberName)
        .filter(member -> member.equalsIgnoreCase(getter)).findFirst().orElse(getter);
  }

  private static Method asString(Method enumGetter) {
    try {
      return enumGetter.getDeclaringClass().getMethod(enumGetter.getName() + "AsString");
    } catch (NoSuchMethodException e) {
      throw new AssertionError(e);
    }
  }

  private static Object invoke(Method method, Object target) {
    try {
      return method.invoke(target);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
