package io.taskmesh.cli;

/**
 * A connection URL fit for dev's console and logs: the password is replaced by {@code ***} whether
 * it is in the user info ({@code postgresql://user:pw@host/db}) or a query parameter ({@code
 * jdbc:postgresql://host/db?password=pw}).
 */
final class MaskedUrl {
  private MaskedUrl() {}

  static String of(String url) {
    return url.replaceAll("(//[^/@:?#]*):[^/@]*@", "$1:***@")
        .replaceAll("([?&]password=)[^&]*", "$1***");
  }
}
