/*
 * row_text.h
 *	A row (operators/expr.h: values in the order of their columns) as
 *	one line of a sink's file: CSV, or a JSON object.
 *
 * Values, by type:
 *   BIGINT       digits, '-' for a negative one
 *   DECIMAL      as Flink prints it (wm_expr_decimal_text(): 90.800)
 *   TIMESTAMP    epoch milliseconds, digits (the file says nothing of
 *                a time zone, and sorts and compares as numbers)
 *   BOOLEAN      true, false
 *   STRING       CSV: lib/csv_field.h's rule (quoted when it holds a
 *                comma, a quote, CR or LF); JSON: a string, escaped as
 *                lib/json_escape.h escapes (control characters as \uXXXX,
 *                a byte of ill-formed UTF-8 as \xNN)
 * which is how the Flink side of the tests prints a query's rows
 * (flink/peer NexmarkQueries), so that the two files compare with diff
 * once sorted.
 *
 * A CSV file starts with a header of the column names, each written as
 * a field; a JSON object names its members so. Every line ends with
 * '\n'. Writers write at p, which has room for wm_row_text_max() bytes,
 * and return the end; nothing is NUL-terminated.
 */
#ifndef WM_RUNTIME_IO_ROW_TEXT_H
#define WM_RUNTIME_IO_ROW_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "operators/expr.h"

/* The most bytes the line of `row` (or, row NULL, the CSV header) takes
 * in JSON (json) or CSV. */
size_t wm_row_text_max(const struct wm_expr_field *cols, size_t n,
		       const struct wm_expr_value *row, bool json);

/* The CSV header: the column names. */
char *wm_row_csv_header(char *p, const struct wm_expr_field *cols, size_t n);

/* The row as a CSV line. */
char *wm_row_csv(char *p, const struct wm_expr_field *cols, size_t n,
		 const struct wm_expr_value *row);

/* The row as a JSON object on one line. */
char *wm_row_json(char *p, const struct wm_expr_field *cols, size_t n,
		  const struct wm_expr_value *row);

#endif /* WM_RUNTIME_IO_ROW_TEXT_H */
