//! CMake: which target compiles a source file, and the lines that add a `.cu` file to it.
//!
//! The listfile is read as CMake's own grammar reads it (command invocations with unquoted,
//! quoted and bracket arguments, line and bracket comments), not with regular expressions, so a
//! source named inside a comment or a string of another command is not mistaken for the target's.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use super::CudaArch;
use crate::search::offload::LineEdit;

/// One command invocation: `add_executable(saxpy saxpy.cpp)` on lines `line..=end_line`.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// Lower-cased: CMake command names are case-insensitive.
    pub name: String,
    pub args: Vec<String>,
    pub line: usize,
    pub end_line: usize,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SyntaxError {
    #[error("line {line}: unterminated {what}")]
    Unterminated { line: usize, what: &'static str },
}

/// The commands of a listfile, in order.
pub fn parse(text: &str) -> Result<Vec<Command>, SyntaxError> {
    let mut lexer = Lexer {
        chars: text.chars().collect(),
        pos: 0,
        line: 1,
    };
    let mut commands = Vec::new();
    loop {
        lexer.skip_space_and_comments()?;
        let Some(c) = lexer.peek() else { break };
        if c.is_ascii_alphabetic() || c == '_' {
            let line = lexer.line;
            let name = lexer.take_while(|c| c.is_ascii_alphanumeric() || c == '_');
            lexer.take_while(|c| c == ' ' || c == '\t');
            if lexer.peek() != Some('(') {
                // Not a command (CMake would reject the file); skip the word.
                continue;
            }
            lexer.pos += 1;
            let args = lexer.arguments(line)?;
            commands.push(Command {
                name: name.to_ascii_lowercase(),
                args,
                line,
                end_line: lexer.line,
            });
        } else {
            lexer.bump();
        }
    }
    Ok(commands)
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    line: usize,
}

impl Lexer {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn take_while(&mut self, f: impl Fn(char) -> bool) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek().filter(|&c| f(c)) {
            s.push(c);
            self.bump();
        }
        s
    }

    fn skip_space_and_comments(&mut self) -> Result<(), SyntaxError> {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.bump();
            } else if c == '#' {
                self.bump();
                if let Some(level) = self.bracket_open() {
                    self.bracket_body(level, "bracket comment")?;
                } else {
                    self.take_while(|c| c != '\n');
                }
            } else {
                break;
            }
        }
        Ok(())
    }

    /// At `[=*[`: consumes it and returns the number of `=`.
    fn bracket_open(&mut self) -> Option<usize> {
        if self.peek() != Some('[') {
            return None;
        }
        let mut i = self.pos + 1;
        while self.chars.get(i) == Some(&'=') {
            i += 1;
        }
        if self.chars.get(i) != Some(&'[') {
            return None;
        }
        let level = i - self.pos - 1;
        while self.pos <= i {
            self.bump();
        }
        Some(level)
    }

    /// The text up to the matching `]=*]` (the level of the last `bracket_open`).
    fn bracket_body(&mut self, level: usize, what: &'static str) -> Result<String, SyntaxError> {
        let line = self.line;
        let start = self.pos;
        let close: Vec<char> = std::iter::once(']')
            .chain(std::iter::repeat_n('=', level))
            .chain(std::iter::once(']'))
            .collect();
        while self.pos < self.chars.len() {
            if self.chars[self.pos..].starts_with(&close) {
                let body: String = self.chars[start..self.pos].iter().collect();
                for _ in 0..close.len() {
                    self.bump();
                }
                return Ok(body);
            }
            self.bump();
        }
        Err(SyntaxError::Unterminated { line, what })
    }

    /// Arguments up to the `)` that closes the invocation (nested parentheses are arguments).
    fn arguments(&mut self, line: usize) -> Result<Vec<String>, SyntaxError> {
        let mut args = Vec::new();
        let mut depth = 0usize;
        loop {
            self.skip_space_and_comments()?;
            match self.peek() {
                None => {
                    return Err(SyntaxError::Unterminated {
                        line,
                        what: "command invocation",
                    });
                }
                Some(')') => {
                    self.bump();
                    if depth == 0 {
                        return Ok(args);
                    }
                    depth -= 1;
                }
                Some('(') => {
                    self.bump();
                    depth += 1;
                }
                Some('"') => {
                    self.bump();
                    args.push(self.quoted()?);
                }
                Some(_) => match self.bracket_open() {
                    Some(level) => args.push(self.bracket_body(level, "bracket argument")?),
                    None => args.push(self.unquoted()),
                },
            }
        }
    }

    fn unquoted(&mut self) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek() {
            if c.is_whitespace() || c == '(' || c == ')' || c == '#' || c == '"' {
                break;
            }
            self.bump();
            if c == '\\' {
                if let Some(n) = self.bump() {
                    s.push(n);
                }
            } else {
                s.push(c);
            }
        }
        s
    }

    fn quoted(&mut self) -> Result<String, SyntaxError> {
        let line = self.line;
        let mut s = String::new();
        while let Some(c) = self.bump() {
            match c {
                '"' => return Ok(s),
                '\\' => {
                    if let Some(n) = self.bump() {
                        s.push(n);
                    }
                }
                _ => s.push(c),
            }
        }
        Err(SyntaxError::Unterminated {
            line,
            what: "quoted argument",
        })
    }
}

/// The target that compiles a source, and the command that names it there.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetMatch {
    pub target: String,
    /// The command after which the `.cu` is added (the one that names the source).
    pub after_line: usize,
}

const TARGET_KEYWORDS: &[&str] = &[
    "WIN32",
    "MACOSX_BUNDLE",
    "EXCLUDE_FROM_ALL",
    "STATIC",
    "SHARED",
    "MODULE",
    "OBJECT",
    "INTERFACE",
    "PRIVATE",
    "PUBLIC",
];

/// Finds the `add_executable`/`add_library`/`target_sources` naming `source` (paths relative to
/// `lists_dir`, `${CMAKE_CURRENT_SOURCE_DIR}`, or a variable set in the same file).
pub fn target_compiling(
    commands: &[Command],
    lists_dir: &Path,
    source: &Path,
) -> Option<TargetMatch> {
    let mut vars: HashMap<String, Vec<String>> = HashMap::new();
    for c in commands {
        match c.name.as_str() {
            "set" if !c.args.is_empty() => {
                let values = expand(&c.args[1..], &vars);
                vars.insert(c.args[0].clone(), values);
            }
            "list" if c.args.len() >= 2 && c.args[0].eq_ignore_ascii_case("APPEND") => {
                let values = expand(&c.args[2..], &vars);
                vars.entry(c.args[1].clone()).or_default().extend(values);
            }
            "add_executable" | "add_library" | "target_sources" if c.args.len() >= 2 => {
                if c.args.iter().any(|a| a == "ALIAS" || a == "IMPORTED") {
                    continue;
                }
                let names = expand(&c.args[1..], &vars);
                let hit = names
                    .iter()
                    .filter(|a| !TARGET_KEYWORDS.contains(&a.as_str()))
                    .any(|a| same_path(&resolve(a, lists_dir), source));
                if hit {
                    return Some(TargetMatch {
                        target: c.args[0].clone(),
                        after_line: c.end_line,
                    });
                }
            }
            _ => {}
        }
    }
    None
}

/// Arguments with `${VAR}` of a variable set in this file replaced by its values (a list
/// variable spreads into several arguments, as in CMake).
fn expand(args: &[String], vars: &HashMap<String, Vec<String>>) -> Vec<String> {
    let mut out = Vec::new();
    for a in args {
        if let Some(name) = a.strip_prefix("${").and_then(|s| s.strip_suffix('}'))
            && let Some(values) = vars.get(name)
        {
            out.extend(values.iter().cloned());
        } else {
            out.extend(a.split(';').filter(|s| !s.is_empty()).map(str::to_string));
        }
    }
    out
}

fn resolve(arg: &str, lists_dir: &Path) -> PathBuf {
    let dir = lists_dir.to_string_lossy();
    let arg = arg
        .replace("${CMAKE_CURRENT_SOURCE_DIR}", &dir)
        .replace("${CMAKE_CURRENT_LIST_DIR}", &dir);
    let p = Path::new(&arg);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        lists_dir.join(p)
    }
}

/// Lexical comparison (`./a.cpp`, `src/../a.cpp`): the build may not exist yet.
fn same_path(a: &Path, b: &Path) -> bool {
    normalize(a) == normalize(b)
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether the listfile already builds CUDA (`project(... CUDA)`, `enable_language(CUDA)`).
pub fn enables_cuda(commands: &[Command]) -> bool {
    commands.iter().any(|c| {
        matches!(c.name.as_str(), "project" | "enable_language")
            && c.args.iter().skip(1).any(|a| a == "CUDA")
            || c.name == "enable_language" && c.args.first().is_some_and(|a| a == "CUDA")
    })
}

/// Whether `target` is an executable of this listfile (a program a check can run).
pub fn executable(commands: &[Command], target: &str) -> bool {
    commands
        .iter()
        .any(|c| c.name == "add_executable" && c.args.first().is_some_and(|a| a == target))
}

/// Whether `file` (relative to the listfile) is already in some target: a second apply of the
/// same kernel adds nothing.
pub fn lists_file(commands: &[Command], lists_dir: &Path, file: &Path) -> bool {
    target_compiling(commands, lists_dir, file).is_some()
}

/// The lines that enable CUDA, inserted after `project()` (or at the top when there is none).
pub fn enable_cuda_edit(commands: &[Command], kernel_file: &str, arch: &CudaArch) -> LineEdit {
    let after = commands
        .iter()
        .find(|c| c.name == "project")
        .or_else(|| commands.iter().find(|c| c.name == "cmake_minimum_required"))
        .map(|c| c.end_line)
        .unwrap_or(0);
    let mut text = format!("# cuda-offload: CUDA for {kernel_file}; {}\n", arch.why());
    if let Some(sm) = arch.cmake_value() {
        // A `-DCMAKE_CUDA_ARCHITECTURES=...` of the user's wins over the detected GPU.
        text.push_str(&format!(
            "if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)\n  set(CMAKE_CUDA_ARCHITECTURES {sm})\nendif()\n"
        ));
    }
    text.push_str("enable_language(CUDA)\n");
    LineEdit {
        start_line: after + 1,
        end_line: after,
        new_text: text,
    }
}

/// `target_sources(<target> PRIVATE <kernel>)` after the command that names the patched source.
pub fn add_source_edit(found: &TargetMatch, kernel_rel: &str) -> LineEdit {
    LineEdit {
        start_line: found.after_line + 1,
        end_line: found.after_line,
        new_text: format!(
            "target_sources({} PRIVATE {kernel_rel})  # cuda-offload\n",
            found.target
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_with_comments_quotes_brackets_and_continuations() {
        let text = "cmake_minimum_required(VERSION 3.16)\n# add_executable(fake x.cpp)\nproject(saxpy\n  LANGUAGES CXX) #[[ a\n bracket comment ]]\nadd_executable(app \"main.cpp\" [=[odd name.cpp]=]\n  src/saxpy.cpp)\nmessage(\"a ) in a string\")\n";
        let cmds = parse(text).unwrap();
        let names: Vec<_> = cmds.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "cmake_minimum_required",
                "project",
                "add_executable",
                "message"
            ]
        );
        assert_eq!(cmds[1].args, ["saxpy", "LANGUAGES", "CXX"]);
        assert_eq!((cmds[1].line, cmds[1].end_line), (3, 4));
        assert_eq!(
            cmds[2].args,
            ["app", "main.cpp", "odd name.cpp", "src/saxpy.cpp"]
        );
        assert_eq!((cmds[2].line, cmds[2].end_line), (6, 7));
        assert_eq!(cmds[3].args, ["a ) in a string"]);
    }

    #[test]
    fn an_unterminated_invocation_is_an_error_with_its_line() {
        assert_eq!(
            parse("project(x CXX)\nadd_executable(a\n  a.cpp\n"),
            Err(SyntaxError::Unterminated {
                line: 2,
                what: "command invocation"
            })
        );
    }

    #[test]
    fn the_target_is_found_through_paths_and_variables() {
        let dir = Path::new("/p");
        let text = "set(SRCS main.cpp)\nlist(APPEND SRCS ${CMAKE_CURRENT_SOURCE_DIR}/src/../src/saxpy.cpp)\nadd_library(core STATIC util.cpp)\nadd_executable(app ${SRCS})\nadd_library(alias_t ALIAS app)\n";
        let cmds = parse(text).unwrap();
        let found = target_compiling(&cmds, dir, Path::new("/p/src/saxpy.cpp")).unwrap();
        assert_eq!(
            found,
            TargetMatch {
                target: "app".into(),
                after_line: 4
            }
        );
        assert_eq!(
            target_compiling(&cmds, dir, Path::new("/p/util.cpp"))
                .unwrap()
                .target,
            "core"
        );
        assert!(target_compiling(&cmds, dir, Path::new("/p/other.cpp")).is_none());
    }

    #[test]
    fn target_sources_counts_and_cuda_is_recognised_in_either_form() {
        let cmds = parse(
            "project(p CXX)\nadd_executable(app main.cpp)\ntarget_sources(app PRIVATE k.cpp)\n",
        )
        .unwrap();
        assert_eq!(
            target_compiling(&cmds, Path::new("/p"), Path::new("/p/k.cpp")),
            Some(TargetMatch {
                target: "app".into(),
                after_line: 3
            })
        );
        assert!(!enables_cuda(&cmds));
        assert!(enables_cuda(
            &parse("project(p LANGUAGES CXX CUDA)").unwrap()
        ));
        assert!(enables_cuda(&parse("enable_language(CUDA)").unwrap()));
    }
}
