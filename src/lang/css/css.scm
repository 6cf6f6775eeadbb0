; CSS: rule sets by selector, keyframes, custom properties.
(rule_set (selectors) @name) @definition.rule
(keyframes_statement (keyframes_name) @name) @definition.keyframes
((declaration (property_name) @name) @definition.variable
  (#match? @name "^--"))
