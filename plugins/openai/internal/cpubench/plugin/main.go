// Command plugin serves the openai provider alone, for the driver.
package main

import (
	"github.com/heraldhq/herald/plugins/openai"
	"github.com/heraldhq/herald/sdk"
)

func main() { _ = sdk.Serve(sdk.ServeOpts{Provider: openai.New()}) }
