import json,sys,os,collections,re
d=sys.argv[1]
cat=collections.Counter(); per=collections.defaultdict(collections.Counter); rows=[]
for line in open(os.path.join(d,'rc.txt')):
    n=line.split()[0]; proj=n.split('-')[0]
    err=open(os.path.join(d,n+'.err')).read()
    try: j=json.load(open(os.path.join(d,n+'.json')))
    except Exception: j=None
    if j and j.get('result'):
        src=j['result'].get('kernel_source','')
        c='compiled' if 'compiled; not run' in src else 'result:'+src[:200].split('\n')[1]
    else:
        m=[l for l in err.splitlines() if l.startswith('error')]
        e=m[-1] if m else err.strip().splitlines()[-1] if err.strip() else 'no output'
        if 'no port' in e: c='no port: '+e.split('no port:')[1].strip()[:90]
        elif 'cannot be offloaded' in e or 'not offload' in e: c='refused: '+e[:150]
        else: c='other: '+e[:150]
    cat[c.split(':')[0]]+=1; per[proj][c.split(':')[0]]+=1; rows.append((n,c))
print(cat)
for p,c in sorted(per.items()): print(p,dict(c))
for n,c in rows:
    if not c.startswith('compiled'): print(n,'|',c)
