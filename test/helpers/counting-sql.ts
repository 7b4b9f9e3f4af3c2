/** An `Sql` that records the text of every statement it runs, to count a code path's storage reads. */
import type { Sql } from "../../durable/storage/sql";

export function countingSql(sql: Sql): { sql: Sql; texts: string[] } {
  const texts: string[] = [];
  const wrapped = ((strings: TemplateStringsArray, ...values: unknown[]) => {
    texts.push(strings.join("?"));
    return sql(strings, ...values);
  }) as Sql;
  wrapped.one = ((strings: TemplateStringsArray, ...values: unknown[]) => {
    texts.push(strings.join("?"));
    return sql.one(strings, ...values);
  }) as Sql["one"];
  wrapped.run = (strings, ...values) => {
    texts.push(strings.join("?"));
    return sql.run(strings, ...values);
  };
  wrapped.cursor = ((strings: TemplateStringsArray, ...values: unknown[]) => {
    texts.push(strings.join("?"));
    return sql.cursor(strings, ...values);
  }) as Sql["cursor"];
  wrapped.script = (text) => {
    texts.push(text);
    sql.script(text);
  };
  wrapped.value = (text) => sql.value(text);
  wrapped.textRead = () => sql.textRead();
  return { sql: wrapped, texts };
}
