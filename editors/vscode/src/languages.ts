// The documents the server is started for. No `vscode` import.

/** VS Code language ids of C, C++ and CUDA (the built-in C/C++ extension calls CUDA `cuda-cpp`). */
export const LANGUAGES = ['cpp', 'c', 'cuda-cpp'] as const;

/**
 * Files on disk only: the server's edits and verification work on real files, and other schemes
 * (git:, diff views, untitled) would show the same loop twice or have no path to compile.
 */
export function documentSelector(): { scheme: 'file'; language: string }[] {
  return LANGUAGES.map((language) => ({ scheme: 'file', language }));
}

export function isServedLanguage(languageId: string): boolean {
  return (LANGUAGES as readonly string[]).includes(languageId);
}
