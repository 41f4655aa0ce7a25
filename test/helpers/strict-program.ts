/**
 * The TypeScript program the type tests compile a user's code in: strict, ES2022, modules
 * resolved as Node.js resolves them, the libraries' own declarations trusted. Each test adds
 * what its code needs (lib, types, paths).
 */
import ts from 'typescript';

export function strictProgram(files: readonly string[], more: ts.CompilerOptions = {}): ts.Program {
  return ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    ...more,
  });
}
