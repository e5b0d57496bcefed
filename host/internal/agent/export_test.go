package agent

// AsksFor exposes asksFor to the package's external tests.
var AsksFor = asksFor
