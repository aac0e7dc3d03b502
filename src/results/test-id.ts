/**
 * A test's identity across runs, as DESIGN.md defines it: `<classname>::<name>`, or
 * `<file>::<name>` where the report gives no classname.
 */
export function testId(classname: string, name: string, file?: string): string {
  return classname !== '' ? `${classname}::${name}` : `${file ?? ''}::${name}`;
}
