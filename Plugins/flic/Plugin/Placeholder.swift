enum FlicPluginPlaceholder {}
