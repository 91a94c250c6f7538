package io.statesweep.spark.rows;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.IntrospectionException;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bean row's {@code equals}, {@code hashCode} and {@code toString} take every property, inherited ones too: two
 * rows that differ in one column are not equal, so a test that compares rows compares all of their columns.
 */
class RowBeansTest {

  static Stream<Class<?>> rows() {
    return Stream.of(DeleteRow.class, DeletedKeyRow.class, ExecutionRow.class, InventoryObjectRow.class,
        KeyFailureRow.class, LedgerTryRow.class, ListedKeyRow.class, ListedRow.class, ListingTaskRow.class,
        ObjectRow.class, PlanRow.class, RecordRow.class, StateFileRow.class, VersionLookupRow.class);
  }

  @ParameterizedTest
  @MethodSource("rows")
  void rowsThatDifferInOnePropertyAreNotEqual(Class<?> type) throws Exception {
    List<PropertyDescriptor> properties = properties(type);
    assertThat(properties).as(type.getSimpleName() + "'s properties").isNotEmpty();
    for (PropertyDescriptor property : properties) {
      Object base = filled(type, properties, null);
      Object other = filled(type, properties, property);

      assertThat(other).as("%s differing in %s", type.getSimpleName(), property.getName()).isNotEqualTo(base);
      assertThat(other.toString()).as("%s's toString", type.getSimpleName())
          .contains(property.getName() + "=");
    }
    assertThat(filled(type, properties, null)).isEqualTo(filled(type, properties, null))
        .hasSameHashCodeAs(filled(type, properties, null));
  }

  private static List<PropertyDescriptor> properties(Class<?> type) throws IntrospectionException {
    List<PropertyDescriptor> properties = new ArrayList<>();
    for (PropertyDescriptor property : Introspector.getBeanInfo(type, Object.class).getPropertyDescriptors()) {
      if (property.getReadMethod() != null && property.getWriteMethod() != null) {
        properties.add(property);
      }
    }
    return properties;
  }

  /** A row with every property set to a first value, and {@code changed} (if any) to a second one. */
  private static Object filled(Class<?> type, List<PropertyDescriptor> properties, PropertyDescriptor changed)
      throws ReflectiveOperationException {
    Object row = type.getConstructor().newInstance();
    for (PropertyDescriptor property : properties) {
      boolean second = property.equals(changed);
      property.getWriteMethod().invoke(row,
          value(property.getWriteMethod().getGenericParameterTypes()[0], second));
    }
    return row;
  }

  private static Object value(Type type, boolean second) throws ReflectiveOperationException {
    if (type instanceof ParameterizedType generic) {
      Class<?> raw = (Class<?>) generic.getRawType();
      Type[] arguments = generic.getActualTypeArguments();
      if (raw == List.class) {
        Object first = value(arguments[0], false);
        return second ? List.of(first, value(arguments[0], true)) : List.of(first);
      }
      if (raw == Map.class) {
        return Map.of(value(arguments[0], false), value(arguments[1], second));
      }
      throw new AssertionError("no value for " + type);
    }
    Class<?> raw = (Class<?>) type;
    if (raw == String.class) {
      return second ? "b" : "a";
    }
    if (raw == long.class || raw == Long.class) {
      return second ? 2L : 1L;
    }
    if (raw == int.class || raw == Integer.class) {
      return second ? 2 : 1;
    }
    if (raw == boolean.class || raw == Boolean.class) {
      return second;
    }
    if (raw == Timestamp.class) {
      return new Timestamp(second ? 2_000 : 1_000);
    }
    // A nested row: one that differs in every property.
    try {
      return filledNested(raw, second);
    } catch (IntrospectionException e) {
      throw new AssertionError(e);
    }
  }

  private static Object filledNested(Class<?> type, boolean second)
      throws ReflectiveOperationException, IntrospectionException {
    Object row = type.getConstructor().newInstance();
    for (PropertyDescriptor property : properties(type)) {
      property.getWriteMethod().invoke(row, value(property.getWriteMethod().getGenericParameterTypes()[0], second));
    }
    return row;
  }
}
