# bash completion for provesim: commands, then each command's options as its own help
# page lists them (`provesim help CMD`), then file names. Installed by `cmake --install`
# to share/bash-completion/completions/provesim.
_provesim() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} prog=${COMP_WORDS[0]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    local cmds
    cmds=$("$prog" --help 2>/dev/null | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}')
    COMPREPLY=($(compgen -W "$cmds help --help --version" -- "$cur"))
    return
  fi
  if [ "$cmd" = help ]; then
    COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}')" -- "$cur"))
    return
  fi
  if [[ $cur == -* ]]; then
    local opts
    opts=$("$prog" help "$cmd" 2>/dev/null | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' ,' | sort -u)
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _provesim provesim
