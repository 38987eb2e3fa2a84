# The notebook's analysis (code_checklist-analysis.Rmd, chunks at lines 28-92) on one CSV,
# every number printed at full precision as "key<TAB>value" lines for the Python test.
# Base read.csv replaces readr::read_csv (same numbers for this all-numeric table).
suppressPackageStartupMessages(library(MASS))
args <- commandArgs(trailingOnly = TRUE)
t <- read.csv(args[1])
out <- function(key, value) cat(key, "\t", sprintf("%.17g", value), "\n", sep = "")
t <- t[t$python == 1, ]
out("n", nrow(t))
t$score <- rowSums(t[, 4:8])
summaries <- tapply(t$stars, t$score, summary)
props <- tapply(t$stars, t$score, length)
props <- props / sum(props)
for (s in names(summaries)) {
  v <- summaries[[s]]
  out(paste0("by_score.", s, ".n"), sum(t$score == as.integer(s)))
  out(paste0("by_score.", s, ".proportion"), props[[s]])
  keys <- c("min", "q1", "median", "mean", "q3", "max")
  for (i in 1:6) out(paste0("by_score.", s, ".", keys[i]), v[[i]])
}
fit <- rlm(stars ~ training + evaluation + pretrained_model + results + dependencies, data = t)
co <- summary(fit)$coefficients
for (term in rownames(co)) {
  out(paste0("rlm.", term, ".estimate"), co[term, 1])
  out(paste0("rlm.", term, ".se"), co[term, 2])
  out(paste0("rlm.", term, ".t"), co[term, 3])
}
out("rlm_fit.scale", fit$s)
out("rlm_fit.iterations", length(fit$conv))
for (i in 0:4) {
  w <- suppressWarnings(wilcox.test(t$stars[t$score == 5], t$stars[t$score == i]))
  out(paste0("wilcoxon.5 vs ", i, ".statistic"), w$statistic)
  out(paste0("wilcoxon.5 vs ", i, ".p"), w$p.value)
  cat("wilcoxon.5 vs ", i, ".method\t", w$method, "\n", sep = "")
}
