#compdef svc
# zsh completion for svc (printed by `svc completion zsh`); needs compinit to have run first.
#
# The words of the command line reach `svc complete` as separate arguments, never through eval:
# a Tab runs no command substitution or glob that the line holds.

_svc() {
    local -a typed lines candidates
    local line value description
    # The words before the cursor and the one being completed, with the quotes the user typed
    # removed ((Q): nothing is expanded). zsh leaves redirections out of $words.
    typed=("${(@Q)words[2,CURRENT-1]}" "${(Q)PREFIX}")
    # --connections=4: svc offers the values alone; the flag stays as typed.
    compset -P '-*='
    lines=("${(@f)$(svc complete -- "${typed[@]}" 2>/dev/null)}")
    for line in "${lines[@]}"; do
        # svc prints "value<TAB>description" lines, then a directive line (":4") that changes nothing here.
        [[ -z $line || $line == :<-> ]] && continue
        value=${line%%$'\t'*}
        description=${line:${#value}+1}
        # _describe reads "value:description"; a colon in the value is escaped.
        candidates+=("${value//:/\\:}${description:+:$description}")
    done
    _describe -t svc 'svc' candidates
}

# Autoloaded from $fpath the file is _svc's body: complete. Sourced: register.
if [[ $funcstack[1] == _svc ]]; then
    _svc "$@"
else
    compdef _svc svc
fi
