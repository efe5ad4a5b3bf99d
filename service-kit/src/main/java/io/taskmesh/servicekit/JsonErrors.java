package io.taskmesh.servicekit;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.temporal.Temporal;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why a request body could not be read as JSON, or bound to a type, in our own words.
 *
 * <p>The parser's own messages name Java classes and parser switches ({@code java.util.ArrayList},
 * {@code JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS}, {@code
 * StreamReadConstraints.getMaxNestingDepth()}): they mean nothing to a client and tell an attacker
 * what runs behind the port. Every service turns parser and binding failures into these texts
 * instead: where the JSON broke (line and column), or which field has the wrong kind of value.
 */
public final class JsonErrors {
  private static final Pattern LIMIT = Pattern.compile("maximum allowed \\((\\d+)");

  private JsonErrors() {}

  /** The failure of reading a request body. */
  public static String describe(Throwable e) {
    return describe("body", e);
  }

  /**
   * The failure of reading {@code what} (for example {@code "body"} or {@code "params"}), which the
   * text names: "body is not valid JSON at line 1, column 5", "field 'text' must be a string".
   */
  public static String describe(String what, Throwable e) {
    if (e instanceof StreamConstraintsException limit) {
      return overLimit(what, limit);
    }
    if (e instanceof InputCoercionException coercion) {
      return "a number in the " + what + " is out of range" + at(coercion.getLocation());
    }
    if (e instanceof JsonMappingException mapping) {
      return binding(what, mapping);
    }
    if (e instanceof JsonEOFException eof) {
      return what + " ends before its JSON is complete" + at(eof.getLocation());
    }
    if (e instanceof JsonProcessingException parse) {
      return syntax(what, parse);
    }
    return what + " could not be read as JSON";
  }

  private static String overLimit(String what, StreamConstraintsException e) {
    String text = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    Matcher m = LIMIT.matcher(text);
    String max = m.find() ? m.group(1) : null;
    if (text.contains("nesting depth")) {
      return what + " nests deeper than " + orMany(max) + " levels";
    }
    if (text.startsWith("Number")) {
      return "a number in the " + what + " is longer than " + orMany(max) + " characters";
    }
    if (text.startsWith("String")) {
      return "a string in the " + what + " is longer than " + orMany(max) + " characters";
    }
    if (text.startsWith("Name")) {
      return "a field name in the " + what + " is longer than " + orMany(max) + " characters";
    }
    return what + " exceeds the size limits of a JSON document";
  }

  private static String orMany(String max) {
    return max == null ? "the allowed" : max;
  }

  private static String syntax(String what, JsonProcessingException e) {
    String text = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    String where = at(e.getLocation());
    if (text.contains("UTF-8") || text.contains("UTF8")) {
      return what + " is not valid UTF-8" + where;
    }
    if (text.contains("CTRL-CHAR") || text.contains("control character")) {
      return what + " has a control character where JSON allows none" + where;
    }
    if (text.contains("NaN") || text.contains("Infinity")) {
      return what + " is not valid JSON" + where + ": NaN and Infinity are not JSON numbers";
    }
    return what + " is not valid JSON" + where;
  }

  private static String binding(String what, JsonMappingException e) {
    String field = path(e.getPath());
    String subject = field.isEmpty() ? what : "field '" + field + "'";
    if (e instanceof ValueInstantiationException) {
      Throwable cause = e.getCause();
      if (cause instanceof IllegalArgumentException && ClientText.isClean(cause.getMessage())) {
        return subject + ": " + cause.getMessage();
      }
      return subject + " has an invalid value";
    }
    if (e instanceof MismatchedInputException mismatch) {
      String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
      if (original.startsWith("No content")) {
        return what + " is empty; send a JSON value";
      }
      if (original.startsWith("Trailing token")) {
        return what + " has data after its JSON value" + at(e.getLocation());
      }
      return subject + " must be " + kind(mismatch.getTargetType());
    }
    if (e.getCause() instanceof JsonProcessingException inner && inner != e) {
      return describe(what, inner);
    }
    return subject + " has an invalid value";
  }

  /** {@code a.b[2].c} from the path Jackson records while binding. */
  private static String path(List<JsonMappingException.Reference> refs) {
    StringBuilder out = new StringBuilder();
    for (JsonMappingException.Reference ref : refs) {
      if (ref.getFieldName() != null) {
        if (out.length() > 0) {
          out.append('.');
        }
        out.append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        out.append('[').append(ref.getIndex()).append(']');
      }
    }
    return out.toString();
  }

  /** The kind of JSON value a Java type is read from, as a client would name it. */
  static String kind(Class<?> type) {
    if (type == null) {
      return "of another kind";
    }
    if (type == String.class || type == char.class || type == Character.class) {
      return "a string";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (type == int.class
        || type == long.class
        || type == short.class
        || type == byte.class
        || type == Integer.class
        || type == Long.class
        || type == Short.class
        || type == Byte.class
        || type == BigInteger.class) {
      return "an integer";
    }
    if (type == double.class
        || type == float.class
        || type == Double.class
        || type == Float.class
        || type == BigDecimal.class
        || Number.class.isAssignableFrom(type)) {
      return "a number";
    }
    if (type.isArray() || Collection.class.isAssignableFrom(type) || type == ArrayNode.class) {
      return "an array";
    }
    if (type.isEnum()) {
      return "one of the allowed values";
    }
    if (Temporal.class.isAssignableFrom(type)) {
      return "a date-time string";
    }
    if (type == JsonNode.class) {
      return "a JSON value";
    }
    if (Map.class.isAssignableFrom(type) || type == ObjectNode.class || !type.isPrimitive()) {
      return "an object";
    }
    return "of another kind";
  }

  private static String at(JsonLocation location) {
    if (location == null || location.getLineNr() < 1) {
      return "";
    }
    return " at line " + location.getLineNr() + ", column " + location.getColumnNr();
  }
}
