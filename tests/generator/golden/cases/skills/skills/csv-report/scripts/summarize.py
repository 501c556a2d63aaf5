# A skill script: package data, served as written (never formatted, compiled or type-checked).
import csv,sys
def summarize(path):
    with open(path) as f: rows=list(csv.reader(f))
    return {'rows':len(rows)-1,'columns':rows[0] if rows else []}
if __name__=='__main__': print(summarize(sys.argv[1]))
