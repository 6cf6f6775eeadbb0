; SCSS: rule sets, mixins, functions, keyframes, variables.
(rule_set (selectors) @name) @definition.rule
(mixin_statement name: (_) @name) @definition.function
(function_statement name: (_) @name) @definition.function
(keyframes_statement (keyframes_name) @name) @definition.keyframes
((declaration (property_name) @name) @definition.variable
  (#match? @name "^(--|\\$)"))
