"""Yahoo! R6A: validate and parse the licensed click logs (or a synthetic stand-in), build the Fig. 2b instance."""
