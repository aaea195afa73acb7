# bash completion for svc (printed by `svc completion bash`); needs the bash-completion package.
#
# The words of the command line reach `svc complete` as separate arguments, never through eval:
# a Tab runs no command substitution, redirection or glob that the line holds.

# Sets REPLY to the word with the quotes and backslashes the user typed removed, as bash would
# pass it to svc; nothing in it is expanded or run ($VAR, $(...), backquotes and * stay as typed).
__svc_unquote() {
    local word=$1 quote='' char next i
    REPLY=''
    for ((i = 0; i < ${#word}; i++)); do
        char=${word:i:1}
        if [[ $quote == "'" ]]; then
            if [[ $char == "'" ]]; then quote=''; else REPLY+=$char; fi
        elif [[ $char == "\\" ]]; then
            next=${word:i+1:1}
            ((++i))
            # Between double quotes a backslash escapes only " \ $ and a backquote: it stays before anything else.
            if [[ $quote && $next != [\"\\\$\`] ]]; then REPLY+="\\"; fi
            REPLY+=$next
        elif [[ $quote && $char == '"' ]]; then
            quote=''
        elif [[ ! $quote && ( $char == "'" || $char == '"' ) ]]; then
            quote=$char
        else
            REPLY+=$char
        fi
    done
}

__svc_complete() {
    local cur words cword word line i
    local -a typed=()
    _get_comp_words_by_ref -n =: cur words cword
    for ((i = 1; i < cword; i++)); do
        word=${words[i]}
        # A redirection operator (>, >>, <, 2>&1 ...) and its file name are the shell's, not svc's.
        if [[ $word == *[\<\>]* && -z ${word//[<>&|]/} ]]; then
            ((++i))
            continue
        fi
        __svc_unquote "$word"
        typed+=("$REPLY")
    done
    # The word being completed, up to the cursor ("" after a space).
    __svc_unquote "$cur"
    typed+=("$REPLY")

    COMPREPLY=()
    while IFS= read -r line; do
        # svc prints "value<TAB>description" lines, then a directive line (":4") that changes nothing here.
        [[ $line =~ ^:[0-9]+$ ]] && continue
        COMPREPLY+=("${line%%$'\t'*}")
    done < <(svc complete -- "${typed[@]}" 2>/dev/null)
}

complete -F __svc_complete svc
