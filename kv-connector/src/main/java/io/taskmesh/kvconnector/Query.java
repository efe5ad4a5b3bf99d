package io.taskmesh.kvconnector;

import java.util.List;

/** A compiled {@code POST /query}: SQL text (placeholders only) plus its parameters. */
record Query(
    String selectSql, List<Object> selectParams, String countSql, List<Object> countParams) {}
