; HTML: elements with an id are the addressable parts of a page.
((element
  (start_tag
    (attribute (attribute_name) @_attr (quoted_attribute_value (attribute_value) @name))))
  @definition.element
  (#eq? @_attr "id"))
